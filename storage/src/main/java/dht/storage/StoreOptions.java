package dht.storage;

import java.time.Duration;
import java.util.function.LongUnaryOperator;

/**
 * How an {@link LsmStore} behaves. Immutable; change with the {@code with...} methods.
 *
 * @param syncPolicy            when the log is fsynced (default {@link SyncPolicy#EVERY_WRITE}:
 *                              survives power loss; {@link SyncPolicy#PERIODIC} survives a process
 *                              kill only)
 * @param syncIntervalMillis    fsync period under {@link SyncPolicy#PERIODIC}
 * @param memtableBytes         approximate bytes the active memtable holds before it is flushed
 * @param maxImmutableMemtables memtables waiting for flush before writers are made to wait
 * @param bloomBitsPerKey       bloom filter bits per key (10 gives about 1% false positives)
 * @param blockSize             target size of a table's data block, in bytes
 * @param tombstoneGrace        a tombstone younger than this is never dropped by compaction
 * @param timestampMillis       maps an entry timestamp to epoch milliseconds, for the grace
 *                              period (identity by default; a timestamp that maps into the future
 *                              is simply never old enough, which is safe)
 * @param compactionMinTables   size-tiered compaction merges a bucket once it has this many tables
 * @param slowdownTables        above this many live tables each write is delayed by 1 ms
 * @param compactionBytesPerSecond the most input bytes a compaction reads per second, 0 for no
 *                              limit (default): a limit spreads a compaction's CPU over a longer
 *                              time instead of taking a core flat out
 * @param flushJitter           each memtable is flushed at a size drawn at random between
 *                              {@code memtableBytes * (1 - flushJitter)} and {@code memtableBytes}
 *                              (0, the default: always at {@code memtableBytes}). For stores that
 *                              receive the same writes, as a cluster's replicas do: with one fixed
 *                              size they all flush, then compact, at the same moment, every time
 * @param acceptMissingTables   open even when tables the manifest names are missing, without them
 *                              (their entries are lost); by default (false) such an open fails
 *                              and changes nothing, so that a file moved away by mistake can be
 *                              put back
 * @param backgroundPriority    the CPU priority of the flush and compaction threads (default
 *                              {@link BackgroundPriority#NORMAL})
 * @param yieldEveryEntries     a flush or compaction yields its CPU ({@link Thread#yield}) after
 *                              writing this many entries, so that request threads waiting for a
 *                              CPU run before it goes on; 0 never yields. Default 1024 (about
 *                              0.3 ms of a compaction's work on our VMs): measured in
 *                              docs/benchmarks.md, "A flush or compaction that yields".
 * @param files                 the file-I/O seam
 */
public record StoreOptions(SyncPolicy syncPolicy, long syncIntervalMillis, long memtableBytes,
                           int maxImmutableMemtables, int bloomBitsPerKey, int blockSize,
                           Duration tombstoneGrace, LongUnaryOperator timestampMillis,
                           int compactionMinTables, int slowdownTables, long compactionBytesPerSecond,
                           double flushJitter, boolean acceptMissingTables, BackgroundPriority backgroundPriority,
                           int yieldEveryEntries, StorageFiles files) {

    public StoreOptions {
        if (syncPolicy == null || tombstoneGrace == null || timestampMillis == null || backgroundPriority == null
                || files == null) {
            throw new IllegalArgumentException("null option");
        }
        if (syncIntervalMillis < 1) throw new IllegalArgumentException("syncIntervalMillis < 1");
        if (memtableBytes < 1024) throw new IllegalArgumentException("memtableBytes < 1024");
        if (maxImmutableMemtables < 1) throw new IllegalArgumentException("maxImmutableMemtables < 1");
        if (bloomBitsPerKey < 1 || bloomBitsPerKey > 64) throw new IllegalArgumentException("bloomBitsPerKey");
        if (blockSize < 256 || blockSize > (1 << 24)) throw new IllegalArgumentException("blockSize");
        if (compactionMinTables < 2) throw new IllegalArgumentException("compactionMinTables < 2");
        if (slowdownTables < compactionMinTables) throw new IllegalArgumentException("slowdownTables");
        if (compactionBytesPerSecond < 0) throw new IllegalArgumentException("compactionBytesPerSecond < 0");
        if (!(flushJitter >= 0 && flushJitter <= 0.5)) throw new IllegalArgumentException("flushJitter not in [0, 0.5]");
        if (yieldEveryEntries < 0) throw new IllegalArgumentException("yieldEveryEntries < 0");
    }

    public static StoreOptions defaults() {
        return new StoreOptions(SyncPolicy.EVERY_WRITE, 100, 16L << 20, 2, 10, 4096,
                Duration.ofDays(1), LongUnaryOperator.identity(), 4, 40, 0, 0, false, BackgroundPriority.NORMAL, 1024,
                NioStorageFiles.INSTANCE);
    }

    public StoreOptions withSyncPolicy(SyncPolicy p) {
        return new StoreOptions(p, syncIntervalMillis, memtableBytes, maxImmutableMemtables, bloomBitsPerKey,
                blockSize, tombstoneGrace, timestampMillis, compactionMinTables, slowdownTables, compactionBytesPerSecond, flushJitter, acceptMissingTables, backgroundPriority, yieldEveryEntries, files);
    }

    public StoreOptions withSyncIntervalMillis(long ms) {
        return new StoreOptions(syncPolicy, ms, memtableBytes, maxImmutableMemtables, bloomBitsPerKey,
                blockSize, tombstoneGrace, timestampMillis, compactionMinTables, slowdownTables, compactionBytesPerSecond, flushJitter, acceptMissingTables, backgroundPriority, yieldEveryEntries, files);
    }

    public StoreOptions withMemtableBytes(long bytes) {
        return new StoreOptions(syncPolicy, syncIntervalMillis, bytes, maxImmutableMemtables, bloomBitsPerKey,
                blockSize, tombstoneGrace, timestampMillis, compactionMinTables, slowdownTables, compactionBytesPerSecond, flushJitter, acceptMissingTables, backgroundPriority, yieldEveryEntries, files);
    }

    public StoreOptions withMaxImmutableMemtables(int n) {
        return new StoreOptions(syncPolicy, syncIntervalMillis, memtableBytes, n, bloomBitsPerKey,
                blockSize, tombstoneGrace, timestampMillis, compactionMinTables, slowdownTables, compactionBytesPerSecond, flushJitter, acceptMissingTables, backgroundPriority, yieldEveryEntries, files);
    }

    public StoreOptions withBloomBitsPerKey(int bits) {
        return new StoreOptions(syncPolicy, syncIntervalMillis, memtableBytes, maxImmutableMemtables, bits,
                blockSize, tombstoneGrace, timestampMillis, compactionMinTables, slowdownTables, compactionBytesPerSecond, flushJitter, acceptMissingTables, backgroundPriority, yieldEveryEntries, files);
    }

    public StoreOptions withBlockSize(int size) {
        return new StoreOptions(syncPolicy, syncIntervalMillis, memtableBytes, maxImmutableMemtables, bloomBitsPerKey,
                size, tombstoneGrace, timestampMillis, compactionMinTables, slowdownTables, compactionBytesPerSecond, flushJitter, acceptMissingTables, backgroundPriority, yieldEveryEntries, files);
    }

    public StoreOptions withTombstoneGrace(Duration grace, LongUnaryOperator toMillis) {
        return new StoreOptions(syncPolicy, syncIntervalMillis, memtableBytes, maxImmutableMemtables, bloomBitsPerKey,
                blockSize, grace, toMillis, compactionMinTables, slowdownTables, compactionBytesPerSecond, flushJitter, acceptMissingTables, backgroundPriority, yieldEveryEntries, files);
    }

    public StoreOptions withCompaction(int minTables, int slowdown) {
        return new StoreOptions(syncPolicy, syncIntervalMillis, memtableBytes, maxImmutableMemtables, bloomBitsPerKey,
                blockSize, tombstoneGrace, timestampMillis, minTables, slowdown, compactionBytesPerSecond, flushJitter, acceptMissingTables, backgroundPriority, yieldEveryEntries, files);
    }

    public StoreOptions withCompactionBytesPerSecond(long rate) {
        return new StoreOptions(syncPolicy, syncIntervalMillis, memtableBytes, maxImmutableMemtables, bloomBitsPerKey,
                blockSize, tombstoneGrace, timestampMillis, compactionMinTables, slowdownTables, rate, flushJitter, acceptMissingTables, backgroundPriority, yieldEveryEntries, files);
    }

    public StoreOptions withFiles(StorageFiles f) {
        return new StoreOptions(syncPolicy, syncIntervalMillis, memtableBytes, maxImmutableMemtables, bloomBitsPerKey,
                blockSize, tombstoneGrace, timestampMillis, compactionMinTables, slowdownTables, compactionBytesPerSecond, flushJitter, acceptMissingTables, backgroundPriority, yieldEveryEntries, f);
    }

    public StoreOptions withFlushJitter(double fraction) {
        return new StoreOptions(syncPolicy, syncIntervalMillis, memtableBytes, maxImmutableMemtables, bloomBitsPerKey,
                blockSize, tombstoneGrace, timestampMillis, compactionMinTables, slowdownTables, compactionBytesPerSecond,
                fraction, acceptMissingTables, backgroundPriority, yieldEveryEntries, files);
    }

    public StoreOptions withBackgroundPriority(BackgroundPriority p) {
        return new StoreOptions(syncPolicy, syncIntervalMillis, memtableBytes, maxImmutableMemtables, bloomBitsPerKey,
                blockSize, tombstoneGrace, timestampMillis, compactionMinTables, slowdownTables, compactionBytesPerSecond,
                flushJitter, acceptMissingTables, p, yieldEveryEntries, files);
    }

    public StoreOptions withYieldEveryEntries(int entries) {
        return new StoreOptions(syncPolicy, syncIntervalMillis, memtableBytes, maxImmutableMemtables, bloomBitsPerKey,
                blockSize, tombstoneGrace, timestampMillis, compactionMinTables, slowdownTables, compactionBytesPerSecond,
                flushJitter, acceptMissingTables, backgroundPriority, entries, files);
    }

    public StoreOptions withMissingTablesAccepted(boolean accept) {
        return new StoreOptions(syncPolicy, syncIntervalMillis, memtableBytes, maxImmutableMemtables, bloomBitsPerKey,
                blockSize, tombstoneGrace, timestampMillis, compactionMinTables, slowdownTables, compactionBytesPerSecond,
                flushJitter, accept, backgroundPriority, yieldEveryEntries, files);
    }
}
