package dht.bench;

import java.io.PrintStream;
import java.time.Instant;
import java.util.Arrays;

/**
 * The worst latency of the requests intended to be sent in each 100 ms slot of the measured window.
 * A percentile spectrum says how long the tail is; this says when it happened, so a tail can be laid
 * beside the node's GC log, a flush or a compaction line, by wall-clock time.
 *
 * <p>Invariants: slot i covers intended send times [i, i+1) x 100 ms after the window opened;
 * a slot that no request was intended in holds -1. Owned by one connection's event loop until
 * merged.
 */
final class Timeline {
    static final long SLOT_NANOS = 100_000_000L;
    /** 24 hours of slots: beyond that a run is not a benchmark, and the array stays bounded. */
    private static final int MAX_SLOTS = 864_000;

    private long[] worst = new long[0];

    void record(long sinceWindowOpen, long latencyNanos) {
        if (sinceWindowOpen < 0) return;
        long slot = sinceWindowOpen / SLOT_NANOS;
        if (slot >= MAX_SLOTS) return;
        ensure((int) slot + 1);
        worst[(int) slot] = Math.max(worst[(int) slot], latencyNanos);
    }

    void merge(Timeline other) {
        ensure(other.worst.length);
        for (int i = 0; i < other.worst.length; i++) {
            worst[i] = Math.max(worst[i], other.worst[i]);
        }
    }

    /** Worst latency (ns) of slot i, -1 when no request was intended in it. */
    long worst(int slot) {
        return slot < worst.length ? worst[slot] : -1;
    }

    int slots() {
        return worst.length;
    }

    /** One line per slot: wall-clock start of the slot (UTC), seconds into the window, worst ms. */
    void print(Instant windowOpen, PrintStream out) {
        out.println("# worst latency of the requests intended in each 100 ms of the measured window");
        out.println("# slot start (UTC)          seconds   worst ms");
        for (int i = 0; i < worst.length; i++) {
            if (worst[i] < 0) continue;
            Instant at = windowOpen.plusNanos(i * SLOT_NANOS);
            out.printf("%-28s %8.1f %10.3f%n", at, i * SLOT_NANOS / 1e9, worst[i] / 1e6);
        }
    }

    private void ensure(int length) {
        if (worst.length >= length) return;
        int old = worst.length;
        worst = Arrays.copyOf(worst, Math.max(length, Math.min(MAX_SLOTS, Math.max(16, old * 2))));
        Arrays.fill(worst, old, worst.length, -1);
    }
}
