package dht.node.http;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds the work a node has in flight. A request that finds the bound reached is refused at once
 * (503 with Retry-After) instead of waiting: an unbounded queue is how a loaded server runs out of
 * memory and every client's latency grows without limit.
 *
 * <p>Invariants: {@code 0 <= inFlight <= maxInFlight} and {@code 0 <= scans <= maxScans}; a scan
 * holds one permit of each. A permit is held from the moment a request is accepted until its answer
 * is written or dropped (for a scan: until its iterator is closed), so the count is real work and
 * memory, not just requests parsed. Once {@link #close()}d no new permit is given out.
 */
public final class Admission {
    private final int maxInFlight;
    private final int maxScans;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger scans = new AtomicInteger();
    private volatile boolean closed;

    public Admission(int maxInFlight, int maxScans) {
        if (maxInFlight < 1 || maxScans < 1) throw new IllegalArgumentException("limits must be positive");
        this.maxInFlight = maxInFlight;
        this.maxScans = maxScans;
    }

    /** Scans hold memory and a worker for as long as the client reads: a small share of the bound. */
    public static Admission forLimit(int maxInFlight) {
        return new Admission(maxInFlight, Math.max(2, Math.min(64, maxInFlight / 16)));
    }

    public boolean tryAcquire() {
        return !closed && increment(inFlight, maxInFlight);
    }

    public void release() {
        inFlight.decrementAndGet();
    }

    public boolean tryAcquireScan() {
        if (closed || !increment(scans, maxScans)) return false;
        if (increment(inFlight, maxInFlight)) return true;
        scans.decrementAndGet();
        return false;
    }

    public void releaseScan() {
        inFlight.decrementAndGet();
        scans.decrementAndGet();
    }

    /** Refuse everything from now on (graceful stop). */
    public void close() {
        closed = true;
    }

    public boolean isClosed() {
        return closed;
    }

    public int inFlight() {
        return inFlight.get();
    }

    public int scans() {
        return scans.get();
    }

    public int maxInFlight() {
        return maxInFlight;
    }

    public int maxScans() {
        return maxScans;
    }

    private static boolean increment(AtomicInteger counter, int max) {
        while (true) {
            int n = counter.get();
            if (n >= max) return false;
            if (counter.compareAndSet(n, n + 1)) return true;
        }
    }
}
