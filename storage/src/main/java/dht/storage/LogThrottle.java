package dht.storage;

/**
 * Lets a condition that repeats (writes stalled behind flushes, a log that cannot be created) be
 * logged at most once a period, the first time at once: a line per occurrence would bury the log,
 * none would leave an operator seeing only the clients' errors. Not thread-safe: its caller holds
 * the lock that guards the condition.
 */
final class LogThrottle {
    private final long periodNanos;
    private long last;
    private boolean logged;

    LogThrottle(long periodNanos) {
        this.periodNanos = periodNanos;
    }

    /** True when a line may be logged now (and the period starts again). */
    boolean allow() {
        long now = System.nanoTime();
        if (logged && now - last < periodNanos) return false;
        logged = true;
        last = now;
        return true;
    }
}
