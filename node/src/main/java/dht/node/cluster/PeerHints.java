package dht.node.cluster;

import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One peer's hints in {@link HintedHandoff}: its queue (one per key, oldest first), what each of
 * its hint files still holds, its delivery state and counters. Guarded by the handoff.
 */
final class PeerHints {
    /** A peer's hint file is closed and a new one begun past this size. */
    static final long FILE_BYTES = 4L << 20;

    /** Its hints by key, oldest first. */
    final LinkedHashMap<ByteBuffer, Hint> queue = new LinkedHashMap<>();
    /** Per hint file: {hints of it still held, its bytes}. */
    private final TreeMap<Long, long[]> files = new TreeMap<>();
    /** The file new hints go to. */
    long file;
    /** The bytes of its files. */
    long diskBytes;
    boolean delivering;
    /** Hints taken out of {@link #queue} for the batch being delivered. */
    int inFlight;
    long runStartNanos = -1;
    long deliveredThisRun;
    long delivered;
    long superseded;
    /** Bytes of its hint files skipped as damaged at start: the hints they held are lost, uncounted. */
    long damagedBytes;
    final EnumMap<HintDrop, Long> dropped = new EnumMap<>(HintDrop.class);
    long backoffMillis;
    long backoffUntilNanos;

    /**
     * Ends the current delivery run if the queue is empty or the peer is gone again (the next run
     * logs anew): the line saying so, or null while it goes on or when none ran.
     */
    String endRun(String peer, boolean up) {
        if (!(queue.isEmpty() || !up) || runStartNanos < 0) return null;
        String line = String.format("peer %s: %d hinted write(s) delivered in %d ms%s", peer, deliveredThisRun,
                (System.nanoTime() - runStartNanos) / 1_000_000, queue.isEmpty() ? "" : ", " + queue.size() + " left: it is down again");
        runStartNanos = -1;
        return line;
    }

    /**
     * Puts {@code h} in the queue unless the hint held for its key is as new or newer; returns the
     * older of the two, superseded (counted), or null if there was none.
     */
    Hint offer(Hint h) {
        ByteBuffer key = ByteBuffer.wrap(h.key);
        Hint old = queue.get(key);
        if (old != null && !h.supersedes(old)) {
            superseded++;
            return h;
        }
        queue.put(key, h);
        if (old != null) superseded++;
        return old;
    }

    /** The file a new hint goes to: the current one, or the next once it is full. */
    long fileForNew() {
        long[] f = files.get(file);
        return f != null && f[1] >= FILE_BYTES ? file + 1 : file;
    }

    /** Counts {@code h} in its file, which becomes the current one. */
    void account(Hint h) {
        file = h.file;
        files.computeIfAbsent(h.file, n -> new long[2]);
        long[] f = files.get(h.file);
        f[0]++;
        f[1] += h.diskBytes;
        diskBytes += h.diskBytes;
    }

    /** Uncounts {@code h}; true if its file holds no hint any more (and can go). */
    boolean unaccount(Hint h) {
        long[] f = files.get(h.file);
        if (f == null || --f[0] > 0) return false;
        files.remove(h.file);
        diskBytes -= f[1];
        if (h.file == file) file++;
        return true;
    }

    /** Whether file {@code n} holds a hint held. */
    boolean holds(long n) {
        return files.containsKey(n);
    }

    void drop(HintDrop why) {
        drop(why, 1);
    }

    void drop(HintDrop why, long n) {
        dropped.merge(why, n, Long::sum);
    }

    /** The peer answered busy: the next batch waits, twice as long as last time, within bounds. */
    void backOff(long maxMillis) {
        backoffMillis = Math.min(maxMillis, Math.max(250, 2 * backoffMillis));
        backoffUntilNanos = System.nanoTime() + backoffMillis * 1_000_000;
    }

    /** Its entry in {@code /v0/status}'s {@code hints}, ages taken at {@code nowMillis}. */
    Map<String, Long> status(long nowMillis) {
        Map<String, Long> c = new LinkedHashMap<>();
        c.put("pending", (long) queue.size() + inFlight);
        c.put("pendingBytes", diskBytes);
        // the queue is oldest first, near enough: a superseding hint keeps its key's place
        Hint first = queue.isEmpty() ? null : queue.firstEntry().getValue();
        c.put("oldestAgeMillis", first == null ? 0 : Math.max(0, nowMillis - HybridLogicalClock.toEpochMillis(first.timestamp)));
        c.put("delivered", delivered);
        c.put("superseded", superseded);
        for (HintDrop r : HintDrop.values()) {
            c.put("dropped" + Character.toUpperCase(r.label().charAt(0)) + r.label().substring(1), dropped.getOrDefault(r, 0L));
        }
        c.put("damagedBytes", damagedBytes);
        return c;
    }
}
