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
 * 19 bits per key for 100-byte values, 6 for empty ones; four probes), blocked as the tables'
 * {@link BloomFilter} is, over the same {@link Bytes#hash}: a key's probes fall in one 512-bit block,
 * so a write's add and a read's probe touch one cache line or two. A memtable that outgrows the
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
    private final int blocks;

    MemtableFilter(long expectedBytes) {
        blocks = (int) Math.min(BloomFilter.blocksFor(expectedBytes / BYTES_PER_BIT), MAX_WORDS / BloomFilter.BLOCK_WORDS);
        this.words = new long[blocks * BloomFilter.BLOCK_WORDS];
    }

    /** Records a key of hash {@code hash}; the memtable's writer only. */
    void add(long hash) {
        int base = BloomFilter.block(hash, blocks) * BloomFilter.BLOCK_WORDS;
        int x = BloomFilter.firstProbe(hash);
        for (int i = 0; i < HASHES; i++) {
            int bit = BloomFilter.bitInBlock(x);
            int w = base + (bit >>> 6);
            WORD.setRelease(words, w, words[w] | 1L << bit);
            x = BloomFilter.nextProbe(x);
        }
    }

    /** False only if no key of hash {@code hash} was added. */
    boolean mightContain(long hash) {
        int base = BloomFilter.block(hash, blocks) * BloomFilter.BLOCK_WORDS;
        int x = BloomFilter.firstProbe(hash);
        for (int i = 0; i < HASHES; i++) {
            int bit = BloomFilter.bitInBlock(x);
            if (((long) WORD.getAcquire(words, base + (bit >>> 6)) & 1L << bit) == 0) return false;
            x = BloomFilter.nextProbe(x);
        }
        return true;
    }
}
