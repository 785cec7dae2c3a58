package dht.node.text;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * How often a log line about a condition that repeats may be written: at most once a period, the
 * first time at once, with how many times it happened since the last line. A line per occurrence
 * would let anyone who can cause it (junk TLS handshakes, connects past the limit) fill the disk;
 * none would leave an operator seeing only the clients' errors. Thread-safe.
 */
public final class LineThrottle {
    private final long periodNanos;
    private final AtomicLong lastLine;
    private final LongAdder occurred = new LongAdder();
    private final AtomicLong occurredAtLastLine = new AtomicLong();

    public LineThrottle(Duration period) {
        this.periodNanos = period.toNanos();
        this.lastLine = new AtomicLong(System.nanoTime() - periodNanos);
    }

    /**
     * Counts one occurrence; returns 0 when no line is to be written for it, else how many times
     * it happened since the last line, this one included.
     */
    public long occurred() {
        occurred.increment();
        long now = System.nanoTime();
        long last = lastLine.get();
        if (now - last < periodNanos || !lastLine.compareAndSet(last, now)) return 0;
        long total = occurred.sum();
        return total - occurredAtLastLine.getAndSet(total);
    }
}
