package dht.node.metrics;

import java.util.function.Supplier;

/**
 * The last value of a supplier, taken again once it is older than {@link #MAX_AGE_NANOS}: the
 * gauges of one scrape read one snapshot of the store's or the cluster's figures instead of
 * taking their locks once per gauge.
 */
final class Snapshot<T> implements Supplier<T> {
    static final long MAX_AGE_NANOS = 250_000_000L;

    private final Supplier<T> source;
    private T value;
    private long takenAt;

    Snapshot(Supplier<T> source) {
        this.source = source;
    }

    @Override
    public synchronized T get() {
        long now = System.nanoTime();
        if (value == null || now - takenAt > MAX_AGE_NANOS) {
            value = source.get();
            takenAt = now;
        }
        return value;
    }
}
