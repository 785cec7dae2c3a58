package dht.node.cluster;

import dht.storage.StoreStats;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What moves because the membership changed, as {@code /v0/status} shows it under {@code rebalance}:
 * the figures of the latest change this node took part in (by its membership version). They start
 * over when a move of a newer change begins here, or when this node sees a newer change under way;
 * what moves of the same change move and clean up adds up (several streams, a stream resumed, the
 * cleanup after a join). What was read and the ETA are those of the reads under way: a move that
 * begins while none runs starts them over; one that begins beside another adds to their totals.
 */
final class RebalanceCounts {
    final AtomicInteger active = new AtomicInteger();
    /** Bytes of versions this node wrote (received) or sent because it gained or lost keys. */
    final AtomicLong bytesMoved = new AtomicLong();
    final AtomicLong keysMoved = new AtomicLong();
    /** Bytes read from the sources' streams, kept or not. */
    final AtomicLong bytesScanned = new AtomicLong();
    /** Versions read from the sources' streams, kept or not: what the ETA counts against {@link #totalEntries}. */
    final AtomicLong entriesScanned = new AtomicLong();
    /** What the sources said their tables and memtables take when the move began (compressed, as stored); -1 unknown. */
    final AtomicLong totalBytes = new AtomicLong(-1);
    /**
     * The versions the sources said they hold when the move began; -1 unknown. The ETA counts
     * versions, not bytes: stored bytes are compressed and scanned ones are not, so a byte ETA
     * ran out long before the move did.
     */
    final AtomicLong totalEntries = new AtomicLong(-1);
    final AtomicLong keysCleanedUp = new AtomicLong();
    /** Of {@link #keysMoved}, those a peer's leave or removal pushed here ({@link #movedIn}). */
    final AtomicLong keysMovedIn = new AtomicLong();
    /** Of {@link #keysMoved}, those a leave handed to a live member for one that was down. */
    final AtomicLong keysHandedOver = new AtomicLong();
    private volatile long startedNanos = System.nanoTime();
    /** When the latest batch a peer's leave or removal pushed here was counted ({@link #movedIn}); 0: none yet. */
    private volatile long movedInNanos;
    /** The membership version that batch was pushed for. */
    private volatile long movedInChange;
    /** The membership version of the change the figures are about; guarded by this. */
    private long change = Long.MIN_VALUE;

    /** What an entry counts for in the bytes moved and scanned: its key, value and about its framing. */
    static long bytesOf(dht.storage.Entry e) {
        return e.key().length + (long) e.valueLength() + 24;
    }

    /**
     * A move of the change at membership {@code version} begins; what its sources hold, in stored
     * bytes and in versions (-1: unknown). For a newer change than the figures', they start over;
     * for the same one (two joiners, a stream resumed, the cleanup's push), it reads its sources
     * again, so the totals grow by them, or the versions read would pass the total and the ETA be lost.
     */
    synchronized void begin(long version, long bytes, long entries) {
        if (version < change) return; // a move of an older change, late: its reads count, its totals do not
        if (version > change) startOver(version);
        if (active.get() <= 1) {
            reading(bytes, entries);
        } else {
            totalBytes.getAndUpdate(t -> grown(t, bytes));
            totalEntries.getAndUpdate(t -> grown(t, entries));
        }
    }

    /**
     * A read of this node's whole store within the change the figures are about, not counted as a
     * move in {@link #active} (the cleanup's push after a join): what was read starts over, what
     * moved adds up.
     */
    synchronized void readingAgain(StoreStats held) {
        reading(held.tableBytes(), held.entries());
    }

    private void reading(long bytes, long entries) {
        startedNanos = System.nanoTime();
        bytesScanned.set(0);
        entriesScanned.set(0);
        totalBytes.set(bytes);
        totalEntries.set(entries);
    }

    /** A move of that change from this node's own store begins: its tables' bytes as stored and its versions. */
    void begin(long version, StoreStats held) {
        begin(version, held.tableBytes(), held.entries());
    }

    /** This node sees the change at {@code version} under way: figures of an older one start over, nothing read yet. */
    synchronized void takingPart(long version) {
        if (version > change) startOver(version);
    }

    private void startOver(long version) {
        change = version;
        startedNanos = System.nanoTime();
        for (AtomicLong a : new AtomicLong[] {bytesMoved, keysMoved, keysMovedIn, bytesScanned, entriesScanned, keysCleanedUp, keysHandedOver}) {
            a.set(0);
        }
        totalBytes.set(-1);
        totalEntries.set(-1);
    }

    /**
     * {@code keys} versions of {@code bytes} a peer pushed here for the change at {@code version}
     * (a leave's or a removal's push), all written: counted unless the figures are of a newer change.
     */
    synchronized void movedIn(long version, int keys, long bytes) {
        if (version < change) return;
        if (version > change) startOver(version);
        keysMoved.addAndGet(keys);
        keysMovedIn.addAndGet(keys);
        bytesMoved.addAndGet(bytes);
        movedInChange = version;
        movedInNanos = System.nanoTime();
    }

    /**
     * Whether a peer's push for the change at {@code version} was counted here within the last
     * {@code nanos}: how a member receiving a removed node's re-created copies knows they still
     * arrive (no membership state says so, as a leave's does; a leave's pushes are for the version
     * that began it, which its end replaces).
     */
    boolean movedInWithin(long nanos, long version) {
        long at = movedInNanos;
        return at != 0 && movedInChange == version && System.nanoTime() - at < nanos;
    }

    /** A total of -1 is unknown: the first known one sets it; an unknown one added keeps it. */
    private static long grown(long total, long more) {
        return total < 0 ? more : more < 0 ? total : total + more;
    }

    /** One entry of {@code bytes} read from a source. */
    void scanned(long bytes) {
        bytesScanned.addAndGet(bytes);
        entriesScanned.incrementAndGet();
    }

    Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("rebalancing", active.get() > 0 ? 1L : 0L);
        m.put("bytesMoved", bytesMoved.get());
        m.put("keysMoved", keysMoved.get());
        m.put("keysMovedIn", keysMovedIn.get());
        m.put("bytesScanned", bytesScanned.get());
        m.put("totalBytes", totalBytes.get());
        m.put("entriesScanned", entriesScanned.get());
        m.put("totalEntries", totalEntries.get());
        m.put("etaMillis", eta());
        m.put("keysCleanedUp", keysCleanedUp.get());
        m.put("keysHandedOver", keysHandedOver.get());
        return m;
    }

    /** 0 when nothing moves; -1 when not known, or when more was read than the sources said they held. */
    private long eta() {
        long total = totalEntries.get();
        long scanned = entriesScanned.get();
        if (active.get() == 0) return 0;
        if (total <= 0 || scanned <= 0 || scanned >= total) return -1;
        long elapsedMillis = (System.nanoTime() - startedNanos) / 1_000_000;
        return Math.max(1, (long) (elapsedMillis * (double) (total - scanned) / scanned));
    }
}
