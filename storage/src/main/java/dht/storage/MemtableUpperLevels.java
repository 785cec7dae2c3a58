package dht.storage;

/**
 * The memtable writer's own sorted copy of its skip list's upper levels: every node tall enough to
 * be on level {@link #LEVEL}, in key order, so that an insert finds its predecessor on that level
 * by a binary search over two arrays instead of walking the levels above it node by node. It saves
 * about 150 ns of a random key's insert (0.78x the time of {@code Memtable.put} alone), but little
 * of a node's CPU: most of the walk's cost is the cache misses of the bottom levels, which it still
 * walks (docs/notes/benchmark-log.md, "Random keys: the memtable's search"). Readers never use it:
 * only the writer ({@link Memtable#put}, synchronized) reads or changes it.
 *
 * <p>Invariants, while {@link #usable}: {@code nodes[0..size)} are exactly the memtable's nodes of
 * height above {@link #LEVEL}, in key order; {@code prefixes[i]} is {@link #prefix} of node
 * {@code i}'s key. Once it would pass its bound it is dropped for good ({@link #usable} false: a
 * memtable of millions of tiny entries), as moving its arrays on each insert would cost more than
 * the walk it saves.
 */
final class MemtableUpperLevels {
    /** The level copied here: a node is on it with probability 1/64 (a quarter per level). */
    static final int LEVEL = 3;
    static final int DEFAULT_MAX_NODES = 16_384;

    /** The order of a key against the key of a memtable node (Memtable#compare). */
    interface NodeOrder {
        int compare(byte[] key, long node);
    }

    private final int maxNodes;
    private final NodeOrder order;
    private long[] prefixes = new long[64];
    private long[] nodes = new long[64];
    private int size;
    private boolean usable = true;

    MemtableUpperLevels(int maxNodes, NodeOrder order) {
        this.maxNodes = maxNodes;
        this.order = order;
    }

    /**
     * The first eight bytes of {@code key} as a big-endian word, zero-padded. Where two keys'
     * prefixes differ, their unsigned order is the keys' order (a first difference within eight
     * bytes is either two bytes, or a byte against the padding of the shorter key, which is the
     * smaller); equal prefixes say nothing.
     */
    static long prefix(byte[] key) {
        long p = 0;
        int n = Math.min(8, key.length);
        for (int i = 0; i < n; i++) p |= (key[i] & 0xffL) << (56 - 8 * i);
        return p;
    }

    boolean usable() {
        return usable;
    }

    /** How many nodes precede {@code key} here: those whose keys are less. */
    private int rank(byte[] key, long keyPrefix) {
        int lo = 0;
        int hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int c = Long.compareUnsigned(keyPrefix, prefixes[mid]);
            if (c == 0) c = order.compare(key, nodes[mid]);
            if (c > 0) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /** The last node on {@link #LEVEL} whose key is less than {@code key}, or {@code head} if none is. */
    long floor(byte[] key, long keyPrefix, long head) {
        int r = rank(key, keyPrefix);
        return r == 0 ? head : nodes[r - 1];
    }

    /** A new node of height above {@link #LEVEL}, with {@code key}, which no node here has. */
    void add(long node, byte[] key, long keyPrefix) {
        if (!usable) return;
        if (size == maxNodes) {
            usable = false;
            prefixes = null;
            nodes = null;
            return;
        }
        int at = rank(key, keyPrefix);
        if (size == nodes.length) {
            int grown = Math.min(maxNodes, size * 2);
            prefixes = java.util.Arrays.copyOf(prefixes, grown);
            nodes = java.util.Arrays.copyOf(nodes, grown);
        }
        System.arraycopy(prefixes, at, prefixes, at + 1, size - at);
        System.arraycopy(nodes, at, nodes, at + 1, size - at);
        prefixes[at] = keyPrefix;
        nodes[at] = node;
        size++;
    }
}
