package dht.storage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Comparator;
import java.util.zip.CRC32C;

/**
 * Byte helpers shared by the file formats and the memtable: unsigned order, little-endian layouts,
 * CRC32C, hashing, and the copy of a value a point read returns.
 */
final class Bytes {
    static final Comparator<byte[]> ORDER = Arrays::compareUnsigned;
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Bytes() {}

    /**
     * {@code len} bytes of {@code seg} from {@code off} in a new array, reserved in {@code budget}
     * before the array is allocated; the reservation goes back if the copy fails (an
     * OutOfMemoryError, most likely), so it never outlives a value that was not made.
     */
    static byte[] copyReserved(MemorySegment seg, long off, int len, ReadBudget budget) throws ReadBudgetExceededException {
        if (!budget.tryReserve(len)) throw new ReadBudgetExceededException(len);
        try {
            byte[] value = new byte[len];
            MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off, value, 0, len);
            return value;
        } catch (RuntimeException | Error e) {
            budget.release(len);
            throw e;
        }
    }

    /** Empties a full buffer (writes it out) so that more can be put in. */
    interface Drain {
        void drain() throws java.io.IOException;
    }

    /**
     * Puts all of {@code from} into {@code buf} (a heap buffer whose whole capacity {@code bufSegment}
     * views), a piece at a time, draining the buffer whenever it is full: how a value of any size is
     * written through a small buffer without a copy of its own. With {@code crc}, also adds the
     * bytes to it, read back from the heap buffer (cheaper than a checksum over a view of {@code from}).
     */
    static void putInPieces(MemorySegment from, java.nio.ByteBuffer buf, MemorySegment bufSegment, CRC32C crc, Drain drain)
            throws java.io.IOException {
        long n = from.byteSize();
        long off = 0;
        while (off < n) {
            if (!buf.hasRemaining()) drain.drain();
            int c = (int) Math.min(buf.remaining(), n - off);
            int at = buf.position();
            MemorySegment.copy(from, off, bufSegment, at, c);
            if (crc != null) crc.update(buf.array(), buf.arrayOffset() + at, c);
            buf.position(at + c);
            off += c;
        }
    }

    /** The same for an array, put with {@link java.nio.ByteBuffer#put(byte[], int, int)}. */
    static void putInPieces(byte[] from, java.nio.ByteBuffer buf, Drain drain) throws java.io.IOException {
        putInPieces(from, 0, from.length, buf, drain);
    }

    /** The same for {@code len} bytes of an array from {@code off}. */
    static void putInPieces(byte[] from, int off, int len, java.nio.ByteBuffer buf, Drain drain) throws java.io.IOException {
        int end = off + len;
        while (off < end) {
            if (!buf.hasRemaining()) drain.drain();
            int n = Math.min(buf.remaining(), end - off);
            buf.put(from, off, n);
            off += n;
        }
    }

    static int crc(byte[] a, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(a, off, len);
        return (int) c.getValue();
    }

    static int crc(MemorySegment seg, long off, long len) {
        CRC32C c = new CRC32C();
        c.update(seg.asSlice(off, len).asByteBuffer());
        return (int) c.getValue();
    }

    /** Unsigned comparison of {@code key} with {@code len} bytes of {@code seg} at {@code off}. */
    static int compare(byte[] key, MemorySegment seg, long off, int len) {
        return compare(MemorySegment.ofArray(key), seg, off, len);
    }

    /**
     * The same with the key already wrapped: a lookup that compares one key many times (a binary
     * search, a block's entries, a scan's bounds) wraps it once. Wrapping per comparison was 44% of
     * a node's allocation samples and 4.5% of its CPU under GET load (the JIT does not remove the
     * wrapper, which escapes into the mismatch intrinsic).
     */
    static int compare(MemorySegment key, MemorySegment seg, long off, int len) {
        long kl = key.byteSize();
        long m = MemorySegment.mismatch(key, 0, kl, seg, off, off + len);
        if (m < 0) return 0;
        if (m == kl) return -1;
        if (m == len) return 1;
        return Integer.compare(key.get(ValueLayout.JAVA_BYTE, m) & 0xff, seg.get(ValueLayout.JAVA_BYTE, off + m) & 0xff);
    }

    /** 64-bit hash of a key for the bloom filter (FNV-1a with a splitmix64 finish). */
    static long hash(byte[] key) {
        long h = 0xcbf29ce484222325L;
        for (byte b : key) {
            h ^= (b & 0xff);
            h *= 0x100000001b3L;
        }
        h ^= key.length;
        h ^= (h >>> 30);
        h *= 0xbf58476d1ce4e5b9L;
        h ^= (h >>> 27);
        h *= 0x94d049bb133111ebL;
        h ^= (h >>> 31);
        return h;
    }

    static void putInt(byte[] a, int off, int v) {
        a[off] = (byte) v;
        a[off + 1] = (byte) (v >>> 8);
        a[off + 2] = (byte) (v >>> 16);
        a[off + 3] = (byte) (v >>> 24);
    }

    static void putLong(byte[] a, int off, long v) {
        putInt(a, off, (int) v);
        putInt(a, off + 4, (int) (v >>> 32));
    }

    static int getInt(byte[] a, int off) {
        return (a[off] & 0xff) | (a[off + 1] & 0xff) << 8 | (a[off + 2] & 0xff) << 16 | (a[off + 3] & 0xff) << 24;
    }

    static long getLong(byte[] a, int off) {
        return (getInt(a, off) & 0xffffffffL) | ((long) getInt(a, off + 4) << 32);
    }
}
