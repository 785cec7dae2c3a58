package dht.bench;

import java.util.concurrent.atomic.AtomicLong;

/** A shared budget of requests (for fill: exactly N); unlimited when max < 0. */
final class Tickets {
    private final long max;
    private final AtomicLong taken = new AtomicLong();

    Tickets(long max) {
        this.max = max;
    }

    boolean take() {
        return max < 0 || taken.getAndIncrement() < max;
    }

    /** Whether the run is bounded by time only (no count of requests). */
    boolean unlimited() {
        return max < 0;
    }

    long taken() {
        return max < 0 ? taken.get() : Math.min(taken.get(), max);
    }
}
