package dht.storage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Collections;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The in-memory sorted buffer for the writes of one log file: a skip list whose nodes, keys and
 * values live off-heap in a {@link MemtableArena}, so that the garbage collector never sees them
 * (the on-heap map it replaced made every young pause copy the memtable). Holds at most one version
 * per key: the one that {@link Entry#supersedes} the others, so the order in which writes arrive
 * does not matter. Reads return copies on the heap.
 *
 * <p>Layout, all 8-byte aligned, native byte order: a node is {@code [value record address: long]
 * [key length: int][height: int][next: long × height][key bytes]}; a value record is
 * {@code [timestamp: long][expiry: long, 0 for never][value length: int, -1 for a tombstone][value bytes]}. Address 0 is the
 * head node (height {@link #MAX_HEIGHT}, no key), so 0 as a next pointer means "end".
 *
 * <p>Invariants: one writer at a time ({@link #put} is synchronized; the store's group-commit leader
 * is the only caller), any number of readers without locks. A node or record is fully written
 * before the release store that links it (a next pointer, or a node's value address), and readers
 * follow links with acquire loads, so a reader sees either the old or the new state, never a torn
 * one; a superseded record stays in the arena (counted in {@link #bytes}) until the memtable is
 * freed. Lifetime is reference counted by the {@link Version}s that list the memtable, like a
 * {@link Table}: the native memory is freed when the last one lets go, and nobody may touch the
 * memtable after that. Whoever lets go last pays for the freeing (closing a shared arena is a
 * handshake with every thread of the JVM: about 1 ms with 150 threads on the 2-core test machine),
 * which is why the flusher holds a reference of its own and is normally the last.
 */
final class Memtable {
    static final int MAX_HEIGHT = 12;
    private static final int VALUE = 0;
    private static final int KEY_LENGTH = 8;
    private static final int HEIGHT = 12;
    private static final int NEXT = 16;
    private static final int RECORD_EXPIRY = 8;
    private static final int RECORD_LENGTH = 16;
    private static final int RECORD_HEADER = 20;
    private static final long HEAD = 0;
    private static final int HEAD_BYTES = NEXT + 8 * MAX_HEIGHT;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** Eight key bytes as one big-endian word, from an array and from the arena. */
    private static final VarHandle ARRAY_WORD = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong SEGMENT_WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    final long logNumber;
    private final MemtableArena arena;
    /** Which keys may be here: reads of the others skip the search (see MemtableFilter). */
    private final MemtableFilter filter;
    private final AtomicInteger refs = new AtomicInteger();
    private final long[] prev = new long[MAX_HEIGHT]; // writer's scratch
    /** The writer's copy of the upper levels, where an insert starts its search (writer only). */
    private final MemtableUpperLevels upper;
    private long random;
    private volatile int count;
    /** The longest value put here, in bytes: what a point read copies at most. */
    private volatile int largestValue;
    /** Size of this memtable's log once it is closed (for stats). */
    volatile long walBytes;
    /**
     * The greatest timestamp put here, {@link Long#MIN_VALUE} while empty. Guarded by this (put is
     * synchronized): it changes on nearly every put, and is read only for stats, so the write path
     * pays no volatile store for it.
     */
    private long maxTimestamp = Long.MIN_VALUE;

    /**
     * An empty memtable for log {@code logNumber}, taking native memory in chunks of {@code chunkBytes},
     * with a key filter sized for {@code expectedBytes} of entries.
     */
    Memtable(long logNumber, int chunkBytes, long expectedBytes) {
        this.logNumber = logNumber;
        this.arena = new MemtableArena(chunkBytes);
        this.filter = new MemtableFilter(expectedBytes);
        this.random = logNumber * 0x9E3779B97F4A7C15L | 1;
        this.upper = new MemtableUpperLevels(MemtableUpperLevels.DEFAULT_MAX_NODES, this::compare);
        long head = arena.allocate(HEAD_BYTES);
        assert head == HEAD;
    }

    // ---- writing (one thread at a time) ----

    synchronized void put(Entry e) {
        byte[] key = e.key();
        int height = randomHeight();
        long keyPrefix = MemtableUpperLevels.prefix(key);
        // A node no taller than the copied level needs predecessors below it only: the search
        // starts from the copy's floor there. A taller one (1 in 64) searches from the top.
        boolean fromCopy = height <= MemtableUpperLevels.LEVEL && upper.usable();
        long found = fromCopy
                ? seekFrom(upper.floor(key, keyPrefix, HEAD), MemtableUpperLevels.LEVEL - 1, key, prev)
                : seek(key, prev);
        if (found != 0 && compare(key, found) == 0) {
            MemorySegment s = arena.segment(found);
            long o = MemtableArena.offset(found);
            if (supersedes(e, s.get(ValueLayout.JAVA_LONG, o + VALUE))) {
                LONG.setRelease(s, o + VALUE, writeRecord(e));
            }
            return;
        }
        long node = arena.allocate(NEXT + 8 * height + key.length);
        long record = writeRecord(e);
        MemorySegment s = arena.segment(node);
        long o = MemtableArena.offset(node);
        s.set(ValueLayout.JAVA_LONG, o + VALUE, record);
        s.set(ValueLayout.JAVA_INT, o + KEY_LENGTH, key.length);
        s.set(ValueLayout.JAVA_INT, o + HEIGHT, height);
        MemorySegment.copy(key, 0, s, ValueLayout.JAVA_BYTE, o + NEXT + 8L * height, key.length);
        for (int i = 0; i < height; i++) s.set(ValueLayout.JAVA_LONG, o + NEXT + 8L * i, next(prev[i], i));
        filter.add(Bytes.hash(key)); // before the node is linked: a reader that finds it sees its bits
        for (int i = 0; i < height; i++) {
            LONG.setRelease(arena.segment(prev[i]), MemtableArena.offset(prev[i]) + NEXT + 8L * i, node);
        }
        if (height > MemtableUpperLevels.LEVEL) upper.add(node, key, keyPrefix);
        count = count + 1;
    }

    private long writeRecord(Entry e) {
        int length = e.valueLength();
        if (length > largestValue) largestValue = length; // one writer (put is synchronized)
        if (e.timestamp() > maxTimestamp) maxTimestamp = e.timestamp();
        long record = arena.allocate(RECORD_HEADER + length);
        MemorySegment s = arena.segment(record);
        long o = MemtableArena.offset(record);
        s.set(ValueLayout.JAVA_LONG, o, e.timestamp());
        s.set(ValueLayout.JAVA_LONG, o + RECORD_EXPIRY, e.expiryWord());
        s.set(ValueLayout.JAVA_INT, o + RECORD_LENGTH, e.isTombstone() ? -1 : length);
        if (length > 0) MemorySegment.copy(e.valueSegment(), 0, s, o + RECORD_HEADER, length);
        return record;
    }

    /** {@link Entry#supersedes}, against a stored record, without copying it to the heap. */
    private boolean supersedes(Entry e, long record) {
        MemorySegment s = arena.segment(record);
        long o = MemtableArena.offset(record);
        long timestamp = s.get(ValueLayout.JAVA_LONG, o);
        if (e.timestamp() != timestamp) return e.timestamp() > timestamp;
        int length = s.get(ValueLayout.JAVA_INT, o + RECORD_LENGTH);
        boolean tombstone = length < 0;
        if (e.isTombstone() != tombstone) return e.isTombstone();
        if (tombstone) return false;
        return Bytes.compare(e.valueSegment(), s, o + RECORD_HEADER, length) > 0;
    }

    /** LevelDB's: height h with probability 3/4 × (1/4)^(h-1). */
    private int randomHeight() {
        int height = 1;
        while (height < MAX_HEIGHT) {
            random ^= random << 13;
            random ^= random >>> 7;
            random ^= random << 17;
            if ((random & 3) != 0) break;
            height++;
        }
        return height;
    }

    // ---- reading (any thread) ----

    private long next(long node, int level) {
        return (long) LONG.getAcquire(arena.segment(node), MemtableArena.offset(node) + NEXT + 8L * level);
    }

    /**
     * Unsigned order of {@code key} against the key of {@code node}, eight bytes at a time as
     * big-endian words (whose unsigned order is the bytes' order). Read from the array itself: a
     * segment wrapping it was an object (and its session) per write that the JIT did not remove.
     */
    private int compare(byte[] key, long node) {
        MemorySegment s = arena.segment(node);
        long o = MemtableArena.offset(node);
        long start = o + NEXT + 8L * s.get(ValueLayout.JAVA_INT, o + HEIGHT);
        int length = s.get(ValueLayout.JAVA_INT, o + KEY_LENGTH);
        int n = Math.min(key.length, length);
        int i = 0;
        for (; i + Long.BYTES <= n; i += Long.BYTES) {
            long a = (long) ARRAY_WORD.get(key, i);
            long b = s.get(SEGMENT_WORD, start + i);
            if (a != b) return Long.compareUnsigned(a, b);
        }
        for (; i < n; i++) {
            int a = key[i] & 0xff;
            int b = s.get(ValueLayout.JAVA_BYTE, start + i) & 0xff;
            if (a != b) return a - b;
        }
        return Integer.compare(key.length, length);
    }

    /**
     * The first node whose key is at least {@code key}, or 0; with {@code predecessors} (the
     * writer's), also the last node before it on each level, where an insert links in.
     */
    private long seek(byte[] key, long[] predecessors) {
        return seekFrom(HEAD, MAX_HEIGHT - 1, key, predecessors);
    }

    /**
     * {@link #seek} from node {@code x} on {@code fromLevel} down, {@code x} being the last node
     * before {@code key} on the level above it (or the head); fills {@code predecessors} from
     * {@code fromLevel} down.
     */
    private long seekFrom(long x, int fromLevel, byte[] key, long[] predecessors) {
        for (int level = fromLevel; level >= 0; level--) {
            while (true) {
                long next = next(x, level);
                if (next == 0 || compare(key, next) <= 0) break;
                x = next;
            }
            if (predecessors != null) predecessors[level] = x;
        }
        return next(x, 0);
    }

    private Entry entryAt(long node, boolean borrow) {
        try {
            return entryAt(node, ReadBudget.UNLIMITED, Long.MIN_VALUE, borrow);
        } catch (ReadBudgetExceededException e) {
            throw new AssertionError("an unlimited budget refused a value", e);
        }
    }

    /**
     * The node's entry as of now, or null if its timestamp is below {@code atLeast} (it would lose
     * to what the caller has: nothing is copied); its value, if any, reserved in {@code budget} before
     * it is copied, or, with {@code borrow}, a view of the arena (nothing reserved or copied).
     */
    private Entry entryAt(long node, ReadBudget budget, long atLeast, boolean borrow) throws ReadBudgetExceededException {
        MemorySegment s = arena.segment(node);
        long o = MemtableArena.offset(node);
        long record = (long) LONG.getAcquire(s, o + VALUE);
        MemorySegment r = arena.segment(record);
        long ro = MemtableArena.offset(record);
        long timestamp = r.get(ValueLayout.JAVA_LONG, ro);
        if (timestamp < atLeast) return null;
        int height = s.get(ValueLayout.JAVA_INT, o + HEIGHT);
        int keyLength = s.get(ValueLayout.JAVA_INT, o + KEY_LENGTH);
        byte[] key = new byte[keyLength];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, o + NEXT + 8L * height, key, 0, keyLength);
        int length = r.get(ValueLayout.JAVA_INT, ro + RECORD_LENGTH);
        if (length < 0) return Entry.tombstone(key, timestamp);
        long expiry = r.get(ValueLayout.JAVA_LONG, ro + RECORD_EXPIRY);
        if (borrow) return Entry.value(key, r.asSlice(ro + RECORD_HEADER, length), timestamp, expiry);
        return Entry.value(key, Bytes.copyReserved(r, ro + RECORD_HEADER, length, budget), timestamp, expiry);
    }

    Entry get(byte[] key) {
        return get(key, Bytes.hash(key));
    }

    /** The entry of {@code key}, whose {@link Bytes#hash} is {@code hash}, or null. */
    Entry get(byte[] key, long hash) {
        try {
            return get(key, hash, ReadBudget.UNLIMITED, Long.MIN_VALUE);
        } catch (ReadBudgetExceededException e) {
            throw new AssertionError("an unlimited budget refused a value", e);
        }
    }

    /**
     * The same, with a value reserved in {@code budget} before it is copied (ReadBudgetExceededException
     * if it cannot be), and null for a version older than {@code atLeast}, which is not copied.
     */
    Entry get(byte[] key, long hash, ReadBudget budget, long atLeast) throws ReadBudgetExceededException {
        if (!filter.mightContain(hash)) return null;
        long node = seek(key, null);
        return node != 0 && compare(key, node) == 0 ? entryAt(node, budget, atLeast, false) : null;
    }

    /** The stamp of {@code key}'s entry (whose {@link Bytes#hash} is {@code hash}), or null: nothing copied. */
    Stamp stamp(byte[] key, long hash) {
        if (!filter.mightContain(hash)) return null;
        long node = seek(key, null);
        if (node == 0 || compare(key, node) != 0) return null;
        long record = (long) LONG.getAcquire(arena.segment(node), MemtableArena.offset(node) + VALUE);
        MemorySegment r = arena.segment(record);
        long ro = MemtableArena.offset(record);
        long timestamp = r.get(ValueLayout.JAVA_LONG, ro);
        if (r.get(ValueLayout.JAVA_INT, ro + RECORD_LENGTH) < 0) return new Stamp(timestamp, true, 0);
        return Stamp.ofValue(timestamp, r.get(ValueLayout.JAVA_LONG, ro + RECORD_EXPIRY));
    }

    /** Entries with {@code from <= key < to} in key order ({@code null}: unbounded), as of each step. */
    Iterator<Entry> iterator(byte[] from, byte[] to) {
        return iterator(from, to, false);
    }

    /**
     * Every entry, its value borrowed from the arena ({@link Entry#isBorrowed}) rather than copied:
     * for the flush, which holds a reference to this memtable until it is done with them, so a
     * large value is never copied onto the heap on its way to a table.
     */
    Iterator<Entry> borrowingIterator() {
        return iterator(null, null, true);
    }

    /** Entries in {@code [from, to)} as {@link #iterator(byte[], byte[])}, values borrowed from the arena: for a scan that holds this memtable. */
    Iterator<Entry> borrowingIterator(byte[] from, byte[] to) {
        return iterator(from, to, true);
    }

    private Iterator<Entry> iterator(byte[] from, byte[] to, boolean borrow) {
        byte[] start = from == null ? new byte[0] : from;
        if (to != null && Bytes.ORDER.compare(start, to) >= 0) return Collections.emptyIterator();
        return new Iterator<>() {
            private long node = seek(start, null);

            @Override
            public boolean hasNext() {
                return node != 0 && (to == null || compare(to, node) > 0);
            }

            @Override
            public Entry next() {
                if (!hasNext()) throw new NoSuchElementException();
                Entry e = entryAt(node, borrow);
                node = Memtable.this.next(node, 0);
                return e;
            }
        };
    }

    /** The greatest timestamp put here so far; {@link Long#MIN_VALUE} while empty. */
    synchronized long maxTimestamp() { return maxTimestamp; }

    /** The longest value put here so far, in bytes. */
    int largestValue() { return largestValue; }

    /** Native bytes the entries take, superseded versions included: what decides a flush. */
    long bytes() { return arena.used() - HEAD_BYTES; }

    int count() { return count; }

    boolean isEmpty() { return count == 0; }

    // ---- lifetime ----

    void retain() { refs.incrementAndGet(); }

    void release() {
        if (refs.decrementAndGet() == 0) arena.close();
    }

    /** Frees a memtable no {@link Version} ever listed (one replayed and flushed during recovery). */
    void discard() {
        if (refs.get() != 0) throw new IllegalStateException("memtable of log " + logNumber + " is still referenced");
        arena.close();
    }
}
