package dht.storage;

import java.lang.foreign.MemorySegment;

/**
 * The payload of a table's data block, as its checksum covers it (docs/storage-format.md, "Sorted
 * table"). A payload whose first i32 is 0 or more is the entries themselves (that i32 is the first
 * key's length): codec none, read in place. One whose first i32 is negative is a compressed block:
 * {@code -codec_id i32, raw_len i32, compressed_len i32}, then {@code compressed_len} bytes that
 * decompress to exactly {@code raw_len} bytes of entries.
 */
final class DataBlock {
    /** The header of a compressed payload. */
    static final int COMPRESSED_HEADER = 12;

    /** No block the writer makes holds more: one entry of the largest size past a full block. */
    private static final int MAX_RAW = 1 << 30;

    private DataBlock() {}

    /**
     * Whether a compressed block of {@code compressed} bytes (header included) is worth keeping
     * over the {@code raw} bytes it holds: it must save an eighth of them, as LevelDB asks, else
     * the block is stored raw and read in place.
     */
    static boolean worthCompressing(int raw, int compressed) {
        return compressed < raw - raw / 8;
    }

    /** Whether the payload at {@code off} (whose checksum held) is compressed. */
    static boolean isCompressed(MemorySegment seg, long off) {
        return seg.get(Bytes.INT, off) < 0;
    }

    /** The length of the entries the compressed payload at {@code off} holds. */
    static int rawLength(MemorySegment seg, long off) {
        return seg.get(Bytes.INT, off + 4);
    }

    /**
     * The entries of the compressed payload of {@code len} bytes at {@code off} (whose checksum
     * held), decompressed into a new array. IllegalArgumentException when the header names no
     * codec or lengths that do not fit, or the bytes do not decompress to what it says.
     */
    static byte[] decompress(MemorySegment seg, long off, int len) {
        return decompress(seg, off, len, null);
    }

    /**
     * The same, decompressed into {@code into} when it holds at least the raw length (its first
     * {@link #rawLength} bytes are then the entries, the rest left as it was), else into a new
     * array; returns the array used.
     */
    static byte[] decompress(MemorySegment seg, long off, int len, byte[] into) {
        if (len < COMPRESSED_HEADER) throw new IllegalArgumentException("compressed block of " + len + " bytes");
        Compression c = Compression.ofId(-seg.get(Bytes.INT, off));
        int raw = seg.get(Bytes.INT, off + 4);
        int stored = seg.get(Bytes.INT, off + 8);
        if (c == null || c.codec() == null) throw new IllegalArgumentException("unknown codec " + -seg.get(Bytes.INT, off));
        if (raw < 0 || raw > MAX_RAW || stored != len - COMPRESSED_HEADER) {
            throw new IllegalArgumentException("compressed block lengths " + raw + "/" + stored + " in " + len + " bytes");
        }
        byte[] out = into != null && into.length >= raw ? into : new byte[raw];
        c.codec().decompress(seg.asSlice(off + COMPRESSED_HEADER, stored).asByteBuffer(), out, raw);
        return out;
    }
}
