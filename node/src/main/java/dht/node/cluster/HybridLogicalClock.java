package dht.node.cluster;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Write timestamps: microseconds since the epoch, with the logical counter folded in as +1 steps.
 *
 * <p>Invariants: {@link #next()} is strictly greater than every value it returned before and than
 * every value passed to {@link #observe(long)} before it; it never falls behind the physical clock.
 * So two writes one after the other through any nodes whose clocks agree to within the time
 * between them (one machine, or machines within a round trip) are ordered, and a node that has seen
 * a peer's timestamp stamps everything after it higher, whatever the skew. See docs/cluster.md.
 */
public final class HybridLogicalClock {
    private final AtomicLong last = new AtomicLong();
    private final LongSupplier physicalMicros;

    public HybridLogicalClock() {
        this(systemMicros());
    }

    public HybridLogicalClock(LongSupplier physicalMicros) {
        this.physicalMicros = physicalMicros;
    }

    public static LongSupplier systemMicros() {
        Clock clock = Clock.systemUTC();
        return () -> {
            Instant now = clock.instant();
            return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
        };
    }

    /** A timestamp for a new write: max(physical now, last + 1). */
    public long next() {
        long physical = physicalMicros.getAsLong();
        long prev;
        long next;
        do {
            prev = last.get();
            next = Math.max(physical, prev + 1);
        } while (!last.compareAndSet(prev, next));
        return next;
    }

    /** Takes note of a timestamp seen from a peer, so that every later {@link #next()} is above it. */
    public void observe(long timestamp) {
        long prev;
        while (timestamp > (prev = last.get())) {
            if (last.compareAndSet(prev, timestamp)) return;
        }
    }

    /**
     * The wall-clock time a timestamp stands for, in epoch milliseconds (for the storage engine's
     * tombstone grace period: {@code StoreOptions.timestampMillis}). Timestamps are microseconds.
     */
    public static long toEpochMillis(long timestamp) {
        return timestamp / 1_000;
    }

    /** The highest timestamp issued or observed so far. */
    public long current() {
        return last.get();
    }
}
