package dht.bench;

/**
 * The intended send times of one connection: start + n * interval, computed from n each time so
 * that rounding never accumulates into drift. The schedule never waits for responses; a request
 * sent late is still charged from its intended time (the coordinated-omission correction).
 */
public final class Schedule {
    private final long startNanos;
    private final double intervalNanos;
    private long n;

    /**
     * @param startNanos     System.nanoTime of the first intended send
     * @param ratePerSecond  this connection's share of the rate, > 0
     */
    public Schedule(long startNanos, double ratePerSecond) {
        if (!(ratePerSecond > 0)) {
            throw new IllegalArgumentException("rate must be positive: " + ratePerSecond);
        }
        this.startNanos = startNanos;
        this.intervalNanos = 1e9 / ratePerSecond;
    }

    /** The intended time of the next request; each call advances by one interval. */
    public long next() {
        return startNanos + (long) (n++ * intervalNanos);
    }

    /** How many intended sends fall in [startNanos, untilNanos). */
    public long dueBefore(long untilNanos) {
        if (untilNanos <= startNanos) {
            return 0;
        }
        return (long) Math.ceil((untilNanos - startNanos) / intervalNanos);
    }

    public long issued() {
        return n;
    }
}
