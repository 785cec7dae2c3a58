package dht.node.cluster;

/**
 * A bytes-per-second budget for background work: {@link #spend} sleeps the calling thread (never
 * an event loop) for as long as the bytes spent so far run ahead of the budget. Thread-safe; one
 * budget may be shared by several threads, which then share its rate. 0 means no limit.
 */
final class ByteRate {
    /** No limit. */
    static final ByteRate UNLIMITED = new ByteRate(0);

    private final long bytesPerSecond;
    private long nextFreeNanos = System.nanoTime();

    ByteRate(long bytesPerSecond) {
        if (bytesPerSecond < 0) throw new IllegalArgumentException("bytes per second must be 0 or more");
        this.bytesPerSecond = bytesPerSecond;
    }

    /** Takes {@code bytes} from the budget, first sleeping until it has room for them. */
    void spend(long bytes) throws InterruptedException {
        if (bytesPerSecond == 0 || bytes <= 0) return;
        long waitNanos;
        synchronized (this) {
            long now = System.nanoTime();
            // An idle budget does not bank more than a tenth of a second of credit.
            long start = Math.max(nextFreeNanos, now - 100_000_000L);
            nextFreeNanos = start + bytes * 1_000_000_000L / bytesPerSecond;
            waitNanos = nextFreeNanos - now;
        }
        if (waitNanos > 0) Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
    }
}
