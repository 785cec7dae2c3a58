package dht.storage;

/**
 * Lets a warning about a condition that repeats (writes stalled behind flushes, a write-ahead log
 * that cannot be created, a flush retried on a full disk) be emitted at most once a period, the
 * first time at once, with how many times it happened since the last line: a line per occurrence
 * would bury the log, none would leave an operator seeing only the clients' errors.
 * Not thread-safe: its caller holds the lock that guards the condition, or runs on one thread.
 */
final class WarningThrottle {
    private final long periodNanos;
    private long last;
    private boolean logged;
    /** Occurrences since the last line, not counting it. */
    private long unlogged;

    WarningThrottle(long periodNanos) {
        this.periodNanos = periodNanos;
    }

    /** True when a line may be logged now (and the period starts again). */
    boolean allow() {
        return occurred() > 0;
    }

    /**
     * Counts one occurrence; returns 0 when no line is to be logged for it, else how many times it
     * happened since the last line, this one included (and the period starts again).
     */
    long occurred() {
        long now = System.nanoTime();
        if (logged && now - last < periodNanos) {
            unlogged++;
            return 0;
        }
        logged = true;
        last = now;
        long n = unlogged + 1;
        unlogged = 0;
        return n;
    }
}
