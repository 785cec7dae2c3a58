package dht.node.cluster;

import dht.storage.Entry;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of a hand-over ({@code op=handover} of {@code /internal/v0/membership}): the versions a
 * leaving node hands to a live member for a member that is down, each as
 * {@code keyLength:int key timestamp:long expiry:long valueLength:int value}, big-endian, with a
 * value length of -1 for a tombstone.
 */
public final class HandOverBatch {
    private HandOverBatch() {
    }

    public static byte[] encode(List<Entry> entries) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            for (Entry e : entries) {
                out.writeInt(e.key().length);
                out.write(e.key());
                out.writeLong(e.timestamp());
                out.writeLong(e.expiryWord());
                if (e.isTombstone()) {
                    out.writeInt(-1);
                } else {
                    byte[] v = e.value();
                    out.writeInt(v.length);
                    out.write(v);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // not thrown by an array
        }
        return bytes.toByteArray();
    }

    /** @throws IllegalArgumentException when {@code body} is not a whole batch */
    public static List<Entry> decode(byte[] body) {
        List<Entry> out = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(body))) {
            while (in.available() > 0) {
                byte[] key = read(in, in.readInt());
                long timestamp = in.readLong();
                long expiry = in.readLong();
                int length = in.readInt();
                out.add(length == -1 ? Entry.tombstone(key, timestamp) : Entry.value(key, read(in, length), timestamp, expiry));
            }
        } catch (EOFException e) {
            throw new IllegalArgumentException("a hand-over batch cut short");
        } catch (IOException e) {
            throw new IllegalArgumentException("not a hand-over batch: " + e.getMessage());
        }
        return out;
    }

    private static byte[] read(DataInputStream in, int length) throws IOException {
        if (length < 0 || length > in.available()) throw new IOException("a length of " + length + " past the body");
        byte[] b = new byte[length];
        in.readFully(b);
        return b;
    }
}
