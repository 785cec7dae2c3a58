package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.RecordLog;

/**
 * One write kept for a peer by {@link HintedHandoff}: the index of it that stays in memory (its
 * key, timestamp, hint file and offset there) and, only until its file holds it, the entry itself.
 * With no hint files the entry stays for good. Also how often the peer, believed up, refused it,
 * and since when. Guarded by the {@link HintedHandoff} that holds it.
 */
final class Hint {
    /**
     * Heap per hint beyond its key bytes: this object, its key's array header and wrapper, the
     * queue's map entry and slot.
     */
    static final int OVERHEAD = 200;

    final byte[] key;
    final long timestamp;
    final boolean tombstone;
    /** The number of the peer's hint file it is in. */
    final long file;
    /** What its record takes in that file. */
    final long diskBytes;
    /** Where its record starts in the file; -1 until written (or if it could not be). */
    long offset = -1;
    /** The entry while it is not (or cannot be) read back from the file; else null. */
    Entry entry;
    /** The heap this hint is counted for in the budget. */
    long memoryBytes;
    int refusals;
    long firstRefusalNanos;
    /** Delivered, dropped or superseded: no longer counted. */
    boolean gone;

    private Hint(Entry e, long file) {
        this.key = e.key();
        this.timestamp = e.timestamp();
        this.tombstone = e.isTombstone();
        this.file = file;
        this.diskBytes = RecordLog.size(e);
    }

    /** A hint whose entry is held in memory: until its file holds it, or for good with no files. */
    static Hint held(Entry e, long file, boolean forGood) {
        Hint h = new Hint(e, file);
        h.entry = e;
        h.memoryBytes = key(e) + (forGood ? valueBytes(e) : 0);
        return h;
    }

    /** A hint read back from its file at start, at {@code offset}. */
    static Hint onDisk(Entry e, long file, long offset) {
        Hint h = new Hint(e, file);
        h.offset = offset;
        h.memoryBytes = key(e);
        return h;
    }

    /** Its file holds it from {@code at}: the entry is let go. */
    void written(long at) {
        offset = at;
        entry = null;
    }

    /** Its file could not take it: the entry stays in memory, and is counted from now. Returns the added bytes. */
    long notWritten() {
        long more = valueBytes(entry);
        memoryBytes += more;
        return more;
    }

    /**
     * Whether this hint's write is newer than {@code other}'s (for the same key): the later
     * timestamp; at the same one a tombstone; between two values at the same one, by their bytes
     * if both are in memory, else the one held stays.
     */
    boolean supersedes(Hint other) {
        if (entry != null && other.entry != null) return entry.supersedes(other.entry);
        if (timestamp != other.timestamp) return timestamp > other.timestamp;
        return tombstone && !other.tombstone;
    }

    /** Whether {@code e}, read back from its file, is this hint's write. */
    boolean is(Entry e) {
        return e != null && e.timestamp() == timestamp && e.isTombstone() == tombstone && java.util.Arrays.equals(e.key(), key);
    }

    void refusedOnceMore() {
        if (refusals++ == 0) firstRefusalNanos = System.nanoTime();
    }

    /** Failed while the peer was believed down: what counts is refusals in a row by a live peer. */
    void notRefused() {
        refusals = 0;
        firstRefusalNanos = 0;
    }

    private static long key(Entry e) {
        return (long) e.key().length + OVERHEAD;
    }

    private static long valueBytes(Entry e) {
        return e.isTombstone() ? 0 : e.valueLength();
    }
}
