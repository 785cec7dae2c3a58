package dht.node.http;

import dht.node.rpc.ScanRecord;
import dht.storage.Entry;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * How a scan writes entries. {@link #PUBLIC} is the contract's {@code key \n value}, one HTTP chunk
 * per entry, tombstones and values expired by this node's clock skipped. {@link #WIRE} is the
 * internal range stream's {@link ScanRecord}, tombstones, timestamps and expiries included; its
 * chunk boundaries carry no meaning.
 *
 * <p>Values may be borrowed ({@link Entry#isBorrowed}): they are read in place, never asked for as
 * an array. An entry too large for a batch is written in pieces ({@link EntryPieces}): the format's
 * {@link #writeHead head}, the value's bytes, then its {@link #writeTail tail}.
 */
public enum EntryFormat {
    PUBLIC {
        @Override
        boolean includes(Entry e) {
            return !e.isTombstone() && !e.isExpired(System.currentTimeMillis());
        }

        @Override
        boolean countsTowardLimit(Entry e) {
            return true;
        }

        @Override
        int size(Entry e) {
            return e.key().length + 1 + e.valueLength();
        }

        @Override
        void write(Entry e, ByteBuf out) {
            out.writeBytes(e.key()).writeByte('\n').writeBytes(e.valueSegment().asByteBuffer());
        }

        @Override
        boolean chunkPerEntry() {
            return true;
        }

        /** The chunk's own size line too: a large entry's pieces go below the HTTP encoder, framed here as one chunk. */
        @Override
        void writeHead(Entry e, ByteBuf out) {
            out.writeCharSequence(Integer.toHexString(size(e)) + "\r\n", StandardCharsets.US_ASCII);
            out.writeBytes(e.key()).writeByte('\n');
        }

        @Override
        void writeTail(ByteBuf out) {
            out.writeByte('\r').writeByte('\n');
        }
    },
    WIRE {
        @Override
        boolean includes(Entry e) {
            return true;
        }

        /** Values only, as the record's tombstone flag says: what the reading coordinator counts too. */
        @Override
        boolean countsTowardLimit(Entry e) {
            return !e.isTombstone();
        }

        @Override
        int size(Entry e) {
            return ScanRecord.size(e);
        }

        @Override
        void write(Entry e, ByteBuf out) {
            ScanRecord.write(e, out);
        }

        @Override
        boolean chunkPerEntry() {
            return false;
        }

        @Override
        void writeHead(Entry e, ByteBuf out) {
            ScanRecord.writeHead(e, out);
        }

        @Override
        void writeTail(ByteBuf out) {
        }
    };

    abstract boolean includes(Entry e);

    /**
     * Does an entry this format {@link #includes} count toward a scan's {@code limit}? Public: every
     * entry sent (tombstones and expired values are not sent). Wire: the records without the
     * tombstone flag (the store hands out a value it found expired as a tombstone), exactly what the
     * coordinator reading the stream counts, so that it tells a stream cut by its limit from one
     * that reached the end of its range.
     */
    abstract boolean countsTowardLimit(Entry e);

    abstract int size(Entry e);

    abstract void write(Entry e, ByteBuf out);

    /** Must each entry be its own HTTP chunk? Then its pieces are framed by {@link #writeHead}/{@link #writeTail} and written raw. */
    abstract boolean chunkPerEntry();

    /** What precedes the value of an entry written in pieces. */
    abstract void writeHead(Entry e, ByteBuf out);

    /** What follows it. */
    abstract void writeTail(ByteBuf out);
}
