package dht.storage;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Holds a compaction's reads to {@link StoreOptions#compactionBytesPerSecond} (0: unpaced), for
 * the merge and for the second checksum pass alike.
 *
 * <p>Invariants: a caller that is a millisecond or more ahead of the rate sleeps the difference, in
 * slices of at most 10 ms, and between slices looks for a closing store, throwing
 * {@link CompactionCancelledException} once it is (a graceful stop must not wait out a paced
 * compaction). Used by one compaction thread at a time; holds no lock.
 */
final class Pacer {
    private static final long MAX_CLOCK_BYTES = 65_536;
    private static final long MIN_SLEEP_NANOS = 1_000_000L;
    private static final long SLICE_NANOS = 10_000_000L;

    private final long bytesPerSecond;
    private final BooleanSupplier stopping;
    private final long clockBytes;

    Pacer(long bytesPerSecond, BooleanSupplier stopping) {
        this.bytesPerSecond = bytesPerSecond;
        this.stopping = stopping;
        this.clockBytes = bytesPerSecond == 0 ? MAX_CLOCK_BYTES
                : Math.max(1, Math.min(MAX_CLOCK_BYTES, bytesPerSecond / 1000));
    }

    /**
     * Bytes to read between looks at the clock: 64 KiB, or a millisecond's worth at the paced rate
     * if that is less, so a paced reader sleeps about a millisecond at a time.
     */
    long clockBytes() { return clockBytes; }

    /** Throws {@link CompactionCancelledException} once the store is closing. */
    void checkStopping() {
        if (stopping.getAsBoolean()) throw new CompactionCancelledException();
    }

    /** Sleeps while {@code bytes} read since {@code since} (a {@link System#nanoTime}) are ahead of the rate. */
    void pace(long since, long bytes) {
        if (bytesPerSecond == 0) return;
        while (true) {
            long ahead = since + (long) (bytes * 1e9 / bytesPerSecond) - System.nanoTime();
            if (ahead < MIN_SLEEP_NANOS) return;
            checkStopping();
            LockSupport.parkNanos(Math.min(ahead, SLICE_NANOS));
        }
    }
}
