package dht.storage;

import java.lang.foreign.MemorySegment;

/**
 * A bloom filter with double hashing ({@code h1 + i*h2} over one 64-bit hash). Built on heap while
 * a table is written, probed straight from the mapped table. Region layout (docs/storage-format.md):
 * {@code num_hashes u32 | num_words u32 | words u64[num_words] | crc32c u32}.
 */
final class BloomFilter {
    private BloomFilter() {}

    /** Bit probed by hash number {@code i}: {@code (h + i * ((h >>> 33) | 1)) mod nbits}, unsigned. */
    static long bit(long h, int i, long nbits) {
        return Long.remainderUnsigned(h + i * ((h >>> 33) | 1), nbits);
    }

    static int hashes(int bitsPerKey) { return Math.max(1, Math.min(30, (int) Math.round(bitsPerKey * 0.69))); }

    static final class Builder {
        private final long[] words;
        private final int k;

        Builder(long expectedKeys, int bitsPerKey) {
            long bits = Math.max(64, expectedKeys * bitsPerKey);
            long nwords = Math.min((bits + 63) / 64, Integer.MAX_VALUE - 8);
            words = new long[(int) nwords];
            k = hashes(bitsPerKey);
        }

        void add(byte[] key) {
            long h = Bytes.hash(key);
            long nbits = (long) words.length * 64;
            for (int i = 0; i < k; i++) {
                long bit = bit(h, i, nbits);
                words[(int) (bit >>> 6)] |= 1L << (bit & 63);
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

    /** Probes a bloom region of a mapped table for a key of hash {@code h}; {@code off} is the region start. */
    static boolean mightContain(MemorySegment seg, long off, long h) {
        int k = seg.get(Bytes.INT, off);
        int nwords = seg.get(Bytes.INT, off + 4);
        long nbits = (long) nwords * 64;
        for (int i = 0; i < k; i++) {
            long bit = bit(h, i, nbits);
            long w = seg.get(Bytes.LONG, off + 8 + (bit >>> 6) * 8);
            if ((w & (1L << (bit & 63))) == 0) return false;
        }
        return true;
    }
}
