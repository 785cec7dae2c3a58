package dht.node.cluster;

import java.util.function.LongSupplier;

/**
 * A bytes-per-second budget for background work: {@link #spend} sleeps the calling thread (never
 * an event loop) for as long as the bytes spent so far run ahead of the budget. Thread-safe; one
 * budget may be shared by several threads, which then share its rate. 0 means no limit.
 *
 * <p>A ramping budget ({@link #ramping}) starts each run of work slowly: from a
 * {@value #RAMP_FLOOR}th of its rate (never below 1 MiB/s: a budget of that or less is gentle
 * as it is), rising in a straight line to all of it over the ramp, where
 * a run starts at the first spend after {@value #IDLE_SECONDS} s in which the budget was unused. The first seconds
 * of a join are when the code that moves data is cold on every node (docs/benchmarks.md, "Client
 * p99 during a join"); work that starts at the full rate then takes the cores from client traffic.
 */
final class ByteRate {
    /** No limit. */
    static final ByteRate UNLIMITED = new ByteRate(0);
    static final int RAMP_FLOOR = 32;
    static final int IDLE_SECONDS = 10;
    /** A rate gentle enough from the first second: a budget at or below it does not ramp. */
    static final long GENTLE = 1 << 20;

    private final long bytesPerSecond;
    private final long rampNanos;
    private final LongSupplier clock;
    private long nextFreeNanos;
    private long runStartNanos;
    private long lastSpendNanos;
    private boolean spent;

    ByteRate(long bytesPerSecond) {
        this(bytesPerSecond, 0, System::nanoTime);
    }

    ByteRate(long bytesPerSecond, long rampNanos, LongSupplier clock) {
        if (bytesPerSecond < 0) throw new IllegalArgumentException("bytes per second must be 0 or more");
        if (rampNanos < 0) throw new IllegalArgumentException("the ramp must be 0 or more");
        this.bytesPerSecond = bytesPerSecond;
        this.rampNanos = rampNanos;
        this.clock = clock;
        this.nextFreeNanos = clock.getAsLong();
    }

    /** A budget whose runs of work reach {@code bytesPerSecond} over {@code rampSeconds}. */
    static ByteRate ramping(long bytesPerSecond, long rampSeconds) {
        return new ByteRate(bytesPerSecond, rampSeconds * 1_000_000_000L, System::nanoTime);
    }

    /** Takes {@code bytes} from the budget, first sleeping until it has room for them. */
    void spend(long bytes) throws InterruptedException {
        long waitNanos = reserve(bytes);
        if (waitNanos > 0) Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
    }

    /** Takes {@code bytes} from the budget; returns how long the caller must wait before using them. */
    synchronized long reserve(long bytes) {
        if (bytesPerSecond == 0 || bytes <= 0) return 0;
        long now = clock.getAsLong();
        // idle: since the last spend's bytes were used up, not since the call (a slow start's
        // spend may itself take longer than the idle time, which must not restart the ramp)
        if (!spent || now - Math.max(lastSpendNanos, nextFreeNanos) >= IDLE_SECONDS * 1_000_000_000L) runStartNanos = now;
        spent = true;
        lastSpendNanos = now;
        // An idle budget does not bank more than a tenth of a second of credit.
        long start = Math.max(nextFreeNanos, now - 100_000_000L);
        nextFreeNanos = start + (long) (bytes * 1e9 / rateAt(now));
        return nextFreeNanos - now;
    }

    /**
     * The bytes per second allowed at {@code now}: on a ramp, from the floor (a
     * {@value #RAMP_FLOOR}th of the budget, but at least {@link #GENTLE} or the whole budget if
     * that is less) up to the budget.
     */
    private double rateAt(long now) {
        if (rampNanos == 0) return bytesPerSecond;
        double floor = Math.min(bytesPerSecond, Math.max((double) bytesPerSecond / RAMP_FLOOR, GENTLE));
        double share = Math.min(1.0, (double) (now - runStartNanos) / rampNanos);
        return Math.max(floor, bytesPerSecond * share);
    }
}
