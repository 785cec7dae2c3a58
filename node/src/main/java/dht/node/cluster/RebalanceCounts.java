package dht.node.cluster;

import dht.storage.StoreStats;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** What moves because the membership changed, as {@code /v0/status} shows it under {@code rebalance}. */
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
    /** Of {@link #keysMoved}, those a leave handed to a live member for one that was down. */
    final AtomicLong keysHandedOver = new AtomicLong();
    private volatile long startedNanos = System.nanoTime();

    /** What an entry counts for in the bytes moved and scanned: its key, value and about its framing. */
    static long bytesOf(dht.storage.Entry e) {
        return e.key().length + (long) e.valueLength() + 24;
    }

    /** A move begins; what the sources hold, in stored bytes and in versions (-1: unknown). */
    void begin(long bytes, long entries) {
        startedNanos = System.nanoTime();
        bytesScanned.set(0);
        entriesScanned.set(0);
        totalBytes.set(bytes);
        totalEntries.set(entries);
    }

    /** A move from this node's own store begins: its tables' bytes as stored and its versions. */
    void begin(StoreStats held) {
        begin(held.tableBytes(), held.entries());
    }

    /**
     * Another read of this node's store begins while one is under way (two joiners, or a stream
     * resumed before the last one closed): it reads the store again, so the totals grow by it, or
     * the versions read would pass the total and the ETA be lost.
     */
    void more(StoreStats held) {
        totalBytes.getAndUpdate(t -> t < 0 ? t : t + held.tableBytes());
        totalEntries.getAndUpdate(t -> t < 0 ? t : t + held.entries());
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
