package dht.storage;

import java.lang.foreign.MemorySegment;

/**
 * A blocked bloom filter: a key's hash picks one block of {@value #BLOCK_WORDS} words (512 bits,
 * a cache line), and all its probes fall in that block. Built on heap while a table is written,
 * probed straight from the mapped table. Region layout (docs/storage-format.md):
 * {@code num_hashes u32 | num_words u32 | words u64[num_words] | crc32c u32}, {@code num_words} a
 * multiple of {@value #BLOCK_WORDS}.
 *
 * <p>Why blocked: a classic filter probes bits spread over the whole filter, each a cache miss and
 * a 64-bit division, for every key a compaction writes and every table a point read asks. Here a
 * key costs one block (one or two cache lines) and multiplications. The price is a slightly higher
 * false-positive rate at the same size, as blocks fill unevenly (docs/benchmarks.md).
 *
 * <p>Invariant: a key added is always reported as possibly present; the probe sequence is fixed by
 * the format, so writer and reader must compute it alike ({@link #block}, {@link #firstProbe},
 * {@link #nextProbe}).
 */
final class BloomFilter {
    private BloomFilter() {}

    static final int BLOCK_WORDS = 8;
    private static final int GOLDEN = 0x9E3779B9;

    /** The block of hash {@code h} among {@code blocks}: the high half of the 128-bit product, uniform over [0, blocks). */
    static int block(long h, int blocks) { return (int) Math.unsignedMultiplyHigh(h, blocks); }

    /** Probes within a block come from the hash's low 32 bits, which {@link #block} hardly uses. */
    static int firstProbe(long h) { return (int) h; }

    /** The bit within the block (0..511) that probe state {@code x} tests: its top nine bits. */
    static int bitInBlock(int x) { return x >>> 23; }

    static int nextProbe(int x) { return x * GOLDEN; }

    static int hashes(int bitsPerKey) { return Math.max(1, Math.min(30, (int) Math.round(bitsPerKey * 0.69))); }

    /** Blocks at most: the region (8 + 64 bytes a block + 4) must fit an int, as {@link Builder#toBytes} builds it in one array. */
    static final int MAX_BLOCKS = (Integer.MAX_VALUE - 12) / (BLOCK_WORDS * 8);

    /** Number of blocks for {@code bits} bits: at least one, at most {@link #MAX_BLOCKS}. */
    static int blocksFor(long bits) {
        return (int) Math.min(Math.max(1, (bits + 511) / 512), MAX_BLOCKS);
    }

    static final class Builder {
        private final long[] words;
        private final int blocks;
        private final int k;

        Builder(long expectedKeys, int bitsPerKey) {
            blocks = blocksFor(expectedKeys * bitsPerKey);
            words = new long[blocks * BLOCK_WORDS];
            k = hashes(bitsPerKey);
        }

        void add(byte[] key) {
            long h = Bytes.hash(key);
            int base = block(h, blocks) * BLOCK_WORDS;
            int x = firstProbe(h);
            for (int i = 0; i < k; i++) {
                int bit = bitInBlock(x);
                words[base + (bit >>> 6)] |= 1L << bit; // a long shift uses the low six bits
                x = nextProbe(x);
            }
        }

        byte[] toBytes() {
            byte[] out = new byte[8 + words.length * 8 + 4];
            Bytes.putInt(out, 0, k);
            Bytes.putInt(out, 4, words.length);
            for (int i = 0; i < words.length; i++) Bytes.putLong(out, 8 + i * 8, words[i]);
            Bytes.putInt(out, out.length - 4, Bytes.crc(out, 0, out.length - 4));
            return out;
        }
    }

    /** Probes the bloom region of a mapped table for a key of hash {@code h}; {@code off} is the region start. */
    static boolean mightContain(MemorySegment seg, long off, long h) {
        int k = seg.get(Bytes.INT, off);
        int blocks = seg.get(Bytes.INT, off + 4) / BLOCK_WORDS;
        long base = off + 8 + (long) block(h, blocks) * (BLOCK_WORDS * 8);
        int x = firstProbe(h);
        for (int i = 0; i < k; i++) {
            int bit = bitInBlock(x);
            if ((seg.get(Bytes.LONG, base + (bit >>> 6) * 8) & 1L << bit) == 0) return false;
            x = nextProbe(x);
        }
        return true;
    }
}
