package dht.storage;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The storage errors the engine met since it opened, for an operator whose clients see only a
 * failed request (a 504): how many, and the latest one's words and time. An error is a log append
 * or fsync that failed (a full disk, an I/O error; the periodic fsync too), a new log that could
 * not be started (each try), a failed flush (each try) or compaction, and damage found in a table
 * (once per damaged place, as logged; at open, each table salvaged). Writes refused because an
 * earlier error put the store in its error state are not counted again.
 *
 * <p>Recorded only where such a failure is handled, so a read or write that succeeds pays nothing
 * for it. Thread-safe; the count and the latest error are read apart, so a reader may see the
 * count of one more error than the latest one it reads, never fewer.
 */
public final class StorageErrors {
    private final AtomicLong count = new AtomicLong();
    private volatile Latest latest;

    private record Latest(String message, long atMillis, long atNanos) {}

    /** Counts one error, described in one line by {@code message} (file and what failed, no stack trace). */
    void record(String message) {
        latest = new Latest(message, System.currentTimeMillis(), System.nanoTime());
        count.incrementAndGet();
    }

    /** Errors since the store opened. */
    public long count() { return count.get(); }

    /** The latest error's one-line description, or null before the first. */
    public String latestMessage() {
        Latest l = latest;
        return l == null ? null : l.message;
    }

    /** Milliseconds since the latest error (by the monotonic clock), or -1 before the first. */
    public long latestAgeMillis() {
        Latest l = latest;
        return l == null ? -1 : (System.nanoTime() - l.atNanos) / 1_000_000;
    }

    /** When the latest error was met, epoch milliseconds, or 0 before the first. */
    public long latestAtMillis() {
        Latest l = latest;
        return l == null ? 0 : l.atMillis;
    }
}
