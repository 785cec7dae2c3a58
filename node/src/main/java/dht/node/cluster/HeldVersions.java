package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.Stamp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * For each key, the version {@link HashTrees} hold for it, so that a tracked write learns what it
 * replaces without reading the store: an open-addressing table off the heap, keyed by the key's
 * 64-bit {@link MerkleTree#keyHash}, 16 bytes a key (the key hash, then a {@link #word} of the
 * version's timestamp, whether it hashes as a tombstone and the copies its trees follow, {@link
 * #copies}). It grows by doubling up to a byte budget; past it, new keys are not added and their
 * writes read the store as before.
 *
 * <p>Invariants: (1) a key's word, when the table has one, is what the trees hold for that key:
 * {@link #NONE} for no version, {@link #UNKNOWN} when that could not be told (a failed read back),
 * else the version. It is read and changed only under the key's stripe lock in {@link HashTrees},
 * or with every writer excluded (the gate's write side). (2) While {@link #complete()}, every key the
 * store holds has a word, so a key without one holds nothing. Completeness is granted by a build
 * that saw every key ({@link #markComplete}) and lost with any key that could not be added
 * ({@link #losses}). Two keys with one 64-bit hash share a word: a 2^-64-per-pair chance the trees
 * already accept.
 *
 * <p>Keys are never removed one by one (a slot once taken keeps its key), so a probe stops at the
 * first empty slot. Slots are claimed by compare-and-set, so writers of different keys can insert
 * at once under their own stripes; {@link #grow} and {@link #clear} need every writer excluded.
 */
final class HeldVersions {
    private static final Logger log = LoggerFactory.getLogger(HeldVersions.class);

    /** The key is known to hold no version. */
    static final long NONE = 0;
    /** The key's version is not known: read the store. */
    static final long UNKNOWN = Long.MIN_VALUE;
    /** What {@link #get} returns for a key without a slot. */
    static final long ABSENT = Long.MIN_VALUE + 1;
    /** The most the default budget gives: 64 MiB, some 3.6 million keys. */
    static final long DEFAULT_BYTES = 64L << 20;

    /**
     * The budget when none is given: an eighth of the heap's maximum, at most {@link
     * #DEFAULT_BYTES}. Native memory counts against the JVM's direct memory limit, which is the
     * heap's maximum unless set, and the memtables take theirs from it too.
     */
    static long defaultBytes() {
        return Math.min(DEFAULT_BYTES, Runtime.getRuntime().maxMemory() / 8);
    }

    /** A word: bit 63 "hashes as a tombstone", bits 54-61 the copies, bits 0-53 the timestamp + 1. */
    private static final long TOMBSTONE_BIT = Long.MIN_VALUE;
    private static final int COPIES_SHIFT = 54;
    private static final long TIMESTAMP_MASK = (1L << COPIES_SHIFT) - 1;
    private static final int SLOT_BYTES = 16;
    private static final int MIN_SLOTS = 1 << 12;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private long maxSlots;
    private Arena arena;
    private MemorySegment table;
    private long mask;
    /** Slots taken, across every writer. */
    private final java.util.concurrent.atomic.AtomicLong used = new java.util.concurrent.atomic.AtomicLong();
    /** Bumped when a key could not be added or every key was dropped: a completeness granted before is void. */
    private volatile long losses;
    private volatile boolean complete;

    /** @param maxBytes the table's budget; 0: keep none (every write reads the store) */
    HeldVersions(long maxBytes) {
        long slots = Long.highestOneBit(Math.max(0, maxBytes) / SLOT_BYTES);
        this.maxSlots = slots < MIN_SLOTS ? 0 : slots;
        allocate(maxSlots == 0 ? 0 : MIN_SLOTS);
    }

    /** A new, empty table of {@code slots} slots; the old one, if any, is the caller's to {@link #free}. */
    private void allocate(long slots) {
        Arena a = slots == 0 ? null : Arena.ofShared();
        try {
            table = slots == 0 ? MemorySegment.NULL : a.allocate(slots * SLOT_BYTES, 8);
        } catch (RuntimeException | Error e) {
            a.close();
            throw e;
        }
        arena = a;
        mask = slots - 1;
        used.set(0);
    }

    /** Frees a table replaced with every writer excluded: nobody can reach it any more. */
    private static void free(Arena a) {
        if (a != null) a.close();
    }

    /** The word of a version by its stamp (null: none); {@link #UNKNOWN} for a timestamp it cannot hold. */
    static long word(Stamp s) {
        if (s == null) return NONE;
        return word(s.timestamp(), s.tombstone() || s.expiry() != 0, treeCopies(s));
    }

    /** The word of the version {@code e} (a value with an expiry hashes as a tombstone, as in {@link MerkleTree#hashOf}). */
    static long wordOf(Entry e) {
        return word(e.timestamp(), tombstoneish(e), treeCopies(e));
    }

    /** Whether {@code e} hashes as a tombstone: it is one, or a value with an expiry, which becomes one in time. */
    static boolean tombstoneish(Entry e) {
        return e.isTombstone() || e.expiry() != 0;
    }

    /**
     * The copies the trees keep {@code e} on ({@link ExchangePeers#holders}): what its write asked
     * for, a value with an expiry included (0, the replication factor's, for a tombstone). The trees
     * read the store as stored ({@link dht.storage.Store#storedScan}, {@link
     * dht.storage.Store#storedStamp}), so an expired value keeps its copies there; only a compaction
     * past the grace turns it into a tombstone for good, which moves it to the replication factor's
     * trees behind their back, as a forgotten tombstone leaves its hash: the next build mends both.
     */
    static int treeCopies(Entry e) {
        return e.isTombstone() ? 0 : e.copies();
    }

    /** {@link #treeCopies(Entry)} of the version a stamp stands for (null: none, 0). */
    static int treeCopies(Stamp s) {
        return s == null || s.tombstone() ? 0 : s.copies();
    }

    /** The word of a version that asked for no known copies. */
    static long word(long timestamp, boolean tombstoneish) {
        return word(timestamp, tombstoneish, 0);
    }

    /**
     * The word of a version: {@code timestamp + 1}, its tree copies (0 to {@link Entry#MAX_COPIES})
     * and the top bit for "hashes as a tombstone"; {@link #UNKNOWN} for a timestamp past 2^54 - 2
     * (some 570 years of microseconds), which only the store can tell.
     */
    static long word(long timestamp, boolean tombstoneish, int copies) {
        if (timestamp < 0 || timestamp >= TIMESTAMP_MASK) return UNKNOWN;
        return (timestamp + 1) | (long) copies << COPIES_SHIFT | (tombstoneish ? TOMBSTONE_BIT : 0);
    }

    /** The timestamp of a version's word (not {@link #NONE}, {@link #UNKNOWN} or {@link #ABSENT}). */
    static long timestamp(long word) {
        return (word & TIMESTAMP_MASK) - 1;
    }

    /** The tree copies of a version's word (0 for {@link #NONE}: not known). */
    static int copies(long word) {
        return (int) (word >>> COPIES_SHIFT) & 0xFF;
    }

    /**
     * {@link MerkleTree#hashOf} of the version a word stands for (0 for {@link #NONE}), by the
     * key's {@link MerkleTree#keyHash}.
     */
    static long hash(long keyHash, long word) {
        if (word == NONE) return 0;
        return MerkleTree.entryHash(keyHash, timestamp(word), (word & TOMBSTONE_BIT) != 0);
    }

    /** The key's word, or {@link #ABSENT}: then, while {@link #complete()}, it holds nothing. */
    long get(long keyHash) {
        if (mask < 0) return ABSENT;
        long k = nonZero(keyHash);
        for (long i = k & mask; ; i = (i + 1) & mask) {
            long at = (long) LONG.getAcquire(table, i * SLOT_BYTES);
            if (at == k) return (long) LONG.getAcquire(table, i * SLOT_BYTES + 8);
            if (at == 0) return ABSENT;
        }
    }

    /**
     * Sets the key's word, adding the key if it has none. Returns false, changing nothing, when
     * it cannot be added (the budget is spent): completeness is then lost. After true, {@link
     * #wantsToGrow} may say the table should grow before long.
     */
    boolean put(long keyHash, long word) {
        if (mask < 0) {
            lose();
            return false;
        }
        long k = nonZero(keyHash);
        for (long i = k & mask; ; i = (i + 1) & mask) {
            long off = i * SLOT_BYTES;
            long at = (long) LONG.getAcquire(table, off);
            if (at == 0) {
                if (used.get() >= (mask + 1) * 7 / 8) { // keep probes short: never fuller than 7/8
                    lose();
                    return false;
                }
                if (!LONG.compareAndSet(table, off, 0L, k)) {
                    i = (i - 1) & mask; // another key took it: look at the same slot again
                    continue;
                }
                used.incrementAndGet();
                at = k;
            }
            if (at == k) {
                LONG.setRelease(table, off + 8, word);
                return true;
            }
        }
    }

    /** Whether the table is past 3/4 full and may still double. */
    boolean wantsToGrow() {
        long slots = mask + 1;
        return slots > 0 && slots < maxSlots && used.get() > slots * 3 / 4;
    }

    /**
     * Doubles the table (every writer excluded). Should the JVM refuse the memory (its direct
     * memory limit is shared with the memtables), the table stays as it is and grows no more.
     */
    void grow() {
        if (!wantsToGrow()) return;
        MemorySegment old = table;
        Arena oldArena = arena;
        long oldSlots = mask + 1;
        long oldUsed = used.get();
        try {
            allocate(Math.min(maxSlots, oldSlots * 2));
        } catch (OutOfMemoryError e) { // "Cannot reserve direct memory": a budget past what the JVM allows
            log.warn("held versions stay at {} keys: the JVM refused {} more bytes ({})", oldUsed,
                    oldSlots * SLOT_BYTES, e.getMessage());
            table = old;
            mask = oldSlots - 1;
            used.set(oldUsed);
            maxSlots = oldSlots;
            return;
        }
        for (long i = 0; i < oldSlots; i++) {
            long k = old.get(ValueLayout.JAVA_LONG, i * SLOT_BYTES);
            if (k != 0) putFresh(k, old.get(ValueLayout.JAVA_LONG, i * SLOT_BYTES + 8));
        }
        free(oldArena);
    }

    private void putFresh(long k, long word) {
        for (long i = k & mask; ; i = (i + 1) & mask) {
            long off = i * SLOT_BYTES;
            if (table.get(ValueLayout.JAVA_LONG, off) == 0) {
                table.set(ValueLayout.JAVA_LONG, off, k);
                table.set(ValueLayout.JAVA_LONG, off + 8, word);
                used.incrementAndGet();
                return;
            }
        }
    }

    /** Drops every key (every writer excluded): keys left the store behind the trees' back. */
    void clear() {
        lose();
        if (maxSlots == 0) return;
        Arena oldArena = arena;
        allocate(MIN_SLOTS);
        free(oldArena);
    }

    private void lose() {
        losses++;
        complete = false;
    }

    /** A token for {@link #markComplete}: taken when a build starts. */
    long losses() {
        return losses;
    }

    /** A build that began at {@code lossesAtStart} saw every key: complete, unless a key was lost since. */
    void markComplete(long lossesAtStart) {
        if (losses == lossesAtStart && maxSlots > 0) complete = true;
    }

    boolean complete() {
        return complete;
    }

    /** Keys held. */
    long size() {
        return used.get();
    }

    private static long nonZero(long keyHash) {
        return keyHash == 0 ? 1 : keyHash;
    }
}
