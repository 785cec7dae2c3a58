package dht.storage;

/**
 * Lets a warning about a condition that repeats (writes stalled behind flushes, a write-ahead log
 * that cannot be created) be emitted at most once a period, the first time at once: a line per
 * occurrence would bury the log, none would leave an operator seeing only the clients' errors.
 * Not thread-safe: its caller holds the lock that guards the condition.
 */
final class WarningThrottle {
    private final long periodNanos;
    private long last;
    private boolean logged;

    WarningThrottle(long periodNanos) {
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
