package dht.storage;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bloom filter over the keys of one memtable, so that a read of a key the memtable does not hold
 * skips the skip-list search. Once the data outgrows one memtable most reads are such misses, and
 * the search is a chain of cache misses through megabytes of nodes: the CPU flame graphs of GET at
 * 64 connections put 10.6% of a node's samples in it (docs/reports/single-get-64c.md, 26 Nov). A
 * probe here touches four words of a small array instead.
 *
 * <p>Sized once, at one bit per {@value #BYTES_PER_BIT} bytes of the memtable's expected size (about
 * 19 bits per key for 100-byte values, 6 for empty ones; four probes), with the probe sequence of
 * the tables' {@link BloomFilter} over the same {@link Bytes#hash}. A memtable that outgrows the
 * size gets more false positives, never a wrong answer.
 *
 * <p>Invariants: only the memtable's one writer adds (a plain read of a word, then a release store
 * of it with the new bits); readers probe without locks (acquire loads). A key's bits are stored
 * before the memtable links the key's node, so a reader that could find the node also sees its
 * bits: never a false negative.
 */
final class MemtableFilter {
    static final int BYTES_PER_BIT = 8;
    /** 8 MiB of heap at most (a 64 MiB memtable's worth): larger memtables get fewer bits a key. */
    static final int MAX_WORDS = 1 << 20;
    private static final int HASHES = 4;
    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] words;
    private final long bits;

    MemtableFilter(long expectedBytes) {
        long wanted = Math.max(64, expectedBytes / BYTES_PER_BIT);
        this.words = new long[(int) Math.min((wanted + 63) / 64, MAX_WORDS)];
        this.bits = (long) words.length * 64;
    }

    /** Records a key of hash {@code hash}; the memtable's writer only. */
    void add(long hash) {
        for (int i = 0; i < HASHES; i++) {
            long bit = BloomFilter.bit(hash, i, bits);
            int w = (int) (bit >>> 6);
            WORD.setRelease(words, w, words[w] | 1L << (bit & 63));
        }
    }

    /** False only if no key of hash {@code hash} was added. */
    boolean mightContain(long hash) {
        for (int i = 0; i < HASHES; i++) {
            long bit = BloomFilter.bit(hash, i, bits);
            if (((long) WORD.getAcquire(words, (int) (bit >>> 6)) & 1L << (bit & 63)) == 0) return false;
        }
        return true;
    }
}
