package dht.node.rpc;

import dht.storage.Entry;
import io.netty.buffer.ByteBuf;

/**
 * One record of the internal range stream ({@code GET /internal/v0/entities}, docs/wire-format.md
 * "Range stream"), both ways: flags (1 byte), timestamp (8), expiry (8, only with flag bit 1), key
 * length (4), key, value length (4), value; integers big-endian. A tombstone's value length is 0.
 */
public final class ScanRecord {
    /** Flags bit 0: the entry is a tombstone. */
    public static final int TOMBSTONE = 1;
    /** Flags bit 1: an expiry (epoch milliseconds) follows the timestamp; without it the value never expires. */
    public static final int EXPIRES = 2;

    private ScanRecord() {}

    /** The bytes {@link #write} takes for {@code e}. */
    public static int size(Entry e) {
        return headSize(e) + e.valueLength();
    }

    /** The bytes {@link #writeHead} takes for {@code e}: all but the value's. */
    public static int headSize(Entry e) {
        return 1 + 8 + (e.expiryWord() != 0 ? 8 : 0) + 4 + e.key().length + 4;
    }

    public static void write(Entry e, ByteBuf out) {
        writeHead(e, out);
        if (!e.isTombstone()) out.writeBytes(e.valueSegment().asByteBuffer());
    }

    /** The record up to its value: what precedes a value written in pieces of its own. */
    public static void writeHead(Entry e, ByteBuf out) {
        out.writeByte(e.isTombstone() ? TOMBSTONE : e.expiryWord() != 0 ? EXPIRES : 0);
        out.writeLong(e.timestamp());
        if (e.expiryWord() != 0) out.writeLong(e.expiryWord());
        out.writeInt(e.key().length).writeBytes(e.key());
        out.writeInt(e.valueLength());
    }

    /** Where a record is read from; both methods wait for the bytes, and throw if they never come. */
    interface Input {
        int readByte();

        byte[] readBytes(int n);
    }

    /** A record that does not follow the format; the reason says what is wrong. */
    static final class Malformed extends Exception {
        Malformed(String reason) {
            super(reason, null, false, false);
        }
    }

    /** Reads one whole record; the caller has checked that one starts (a byte is available). */
    static Entry read(Input in) throws Malformed {
        int flags = in.readByte();
        long ts = readLong(in);
        long expiry = (flags & EXPIRES) != 0 ? readLong(in) : 0;
        if (!Entry.isExpiryWord(expiry)) throw new Malformed("not an expiry word: " + expiry);
        int klen = readInt(in);
        if (klen < 0) throw new Malformed("a negative key length");
        byte[] key = in.readBytes(klen);
        int vlen = readInt(in);
        if (vlen < 0) throw new Malformed("a negative value length");
        byte[] value = in.readBytes(vlen);
        return (flags & TOMBSTONE) != 0 ? Entry.tombstone(key, ts) : Entry.value(key, value, ts, expiry);
    }

    private static long readLong(Input in) {
        long v = 0;
        for (int i = 0; i < 8; i++) v = v << 8 | in.readByte();
        return v;
    }

    private static int readInt(Input in) {
        int v = 0;
        for (int i = 0; i < 4; i++) v = v << 8 | in.readByte();
        return v;
    }
}
