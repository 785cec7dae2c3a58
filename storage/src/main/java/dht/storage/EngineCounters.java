package dht.storage;

import java.util.concurrent.atomic.LongAdder;

/**
 * The engine's running totals since it opened, for metrics: flushes and compactions with the
 * bytes they wrote (and, for compactions, read) and the time they took, and writes held back while
 * flushing or compaction lags (a stall waits for a flush; a slowdown delays a batch by a
 * millisecond), and the storage errors met ({@link StorageErrors}). Each is only ever added to;
 * reads may run on any thread.
 */
public final class EngineCounters {
    final LongAdder flushes = new LongAdder();
    final LongAdder flushBytes = new LongAdder();
    final LongAdder flushNanos = new LongAdder();
    final LongAdder compactions = new LongAdder();
    final LongAdder compactionBytesRead = new LongAdder();
    final LongAdder compactionBytesWritten = new LongAdder();
    final LongAdder compactionNanos = new LongAdder();
    final LongAdder writeStalls = new LongAdder();
    final LongAdder writeStallNanos = new LongAdder();
    final LongAdder writeSlowdowns = new LongAdder();
    final StorageErrors errors = new StorageErrors();

    public long flushes() { return flushes.sum(); }

    public long flushBytes() { return flushBytes.sum(); }

    public long flushNanos() { return flushNanos.sum(); }

    public long compactions() { return compactions.sum(); }

    public long compactionBytesRead() { return compactionBytesRead.sum(); }

    public long compactionBytesWritten() { return compactionBytesWritten.sum(); }

    public long compactionNanos() { return compactionNanos.sum(); }

    /** Waits of a write batch for a flush, because too many memtables were waiting for one. */
    public long writeStalls() { return writeStalls.sum(); }

    public long writeStallNanos() { return writeStallNanos.sum(); }

    /** Write batches delayed because compaction was behind (too many tables). */
    public long writeSlowdowns() { return writeSlowdowns.sum(); }

    /** The storage errors met, and the latest one. */
    public StorageErrors errors() { return errors; }
}
