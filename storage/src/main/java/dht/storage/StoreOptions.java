package dht.storage;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
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
 * @param compression           the codec new tables' data blocks are written with (default
 *                              {@link Compression#NONE}); tables keep the codec they were written
 *                              with until a compaction rewrites them in this one
 * @param purgeHorizon          asked once at the start of each compaction: a tombstone (or a value
 *                              expired past the grace) whose timestamp, mapped through
 *                              {@code timestampMillis}, is not before the epoch millisecond it
 *                              returns is kept, even past its grace. The embedder says here up to
 *                              when every other copy of the data is known to hold the tombstone
 *                              (default: {@code Long.MAX_VALUE}, no limit beyond the grace)
 */
public record StoreOptions(SyncPolicy syncPolicy, long syncIntervalMillis, long memtableBytes,
                           int maxImmutableMemtables, int bloomBitsPerKey, int blockSize,
                           Duration tombstoneGrace, LongUnaryOperator timestampMillis,
                           int compactionMinTables, int slowdownTables, long compactionBytesPerSecond,
                           double flushJitter, boolean acceptMissingTables, BackgroundPriority backgroundPriority,
                           int yieldEveryEntries, StorageFiles files, Compression compression,
                           LongSupplier purgeHorizon) {

    public StoreOptions {
        if (syncPolicy == null || tombstoneGrace == null || timestampMillis == null || backgroundPriority == null
                || files == null || compression == null || purgeHorizon == null) {
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
                NioStorageFiles.INSTANCE, Compression.NONE, () -> Long.MAX_VALUE);
    }

    public StoreOptions withSyncPolicy(SyncPolicy p) {
        return with(b -> b.syncPolicy = p);
    }

    public StoreOptions withSyncIntervalMillis(long ms) {
        return with(b -> b.syncIntervalMillis = ms);
    }

    public StoreOptions withMemtableBytes(long bytes) {
        return with(b -> b.memtableBytes = bytes);
    }

    public StoreOptions withMaxImmutableMemtables(int n) {
        return with(b -> b.maxImmutableMemtables = n);
    }

    public StoreOptions withBloomBitsPerKey(int bits) {
        return with(b -> b.bloomBitsPerKey = bits);
    }

    public StoreOptions withBlockSize(int size) {
        return with(b -> b.blockSize = size);
    }

    public StoreOptions withTombstoneGrace(Duration grace, LongUnaryOperator toMillis) {
        return with(b -> {
            b.tombstoneGrace = grace;
            b.timestampMillis = toMillis;
        });
    }

    public StoreOptions withCompaction(int minTables, int slowdown) {
        return with(b -> {
            b.compactionMinTables = minTables;
            b.slowdownTables = slowdown;
        });
    }

    public StoreOptions withCompactionBytesPerSecond(long rate) {
        return with(b -> b.compactionBytesPerSecond = rate);
    }

    public StoreOptions withFiles(StorageFiles f) {
        return with(b -> b.files = f);
    }

    public StoreOptions withFlushJitter(double fraction) {
        return with(b -> b.flushJitter = fraction);
    }

    public StoreOptions withBackgroundPriority(BackgroundPriority p) {
        return with(b -> b.backgroundPriority = p);
    }

    public StoreOptions withYieldEveryEntries(int entries) {
        return with(b -> b.yieldEveryEntries = entries);
    }

    public StoreOptions withMissingTablesAccepted(boolean accept) {
        return with(b -> b.acceptMissingTables = accept);
    }

    public StoreOptions withCompression(Compression c) {
        return with(b -> b.compression = c);
    }

    public StoreOptions withPurgeHorizon(LongSupplier horizonMillis) {
        return with(b -> b.purgeHorizon = horizonMillis);
    }

    /**
     * A copy with the changes {@code change} makes to a draft of this one's components; the
     * canonical constructor checks the result. The one place that lists every component in
     * order, so that a new option touches this, the record header and {@link #defaults} only.
     */
    private StoreOptions with(Consumer<Draft> change) {
        Draft d = new Draft(this);
        change.accept(d);
        return new StoreOptions(d.syncPolicy, d.syncIntervalMillis, d.memtableBytes, d.maxImmutableMemtables,
                d.bloomBitsPerKey, d.blockSize, d.tombstoneGrace, d.timestampMillis, d.compactionMinTables,
                d.slowdownTables, d.compactionBytesPerSecond, d.flushJitter, d.acceptMissingTables,
                d.backgroundPriority, d.yieldEveryEntries, d.files, d.compression, d.purgeHorizon);
    }

    /** The components of a {@link StoreOptions} while one is being changed; never escapes {@link #with}. */
    private static final class Draft {
        SyncPolicy syncPolicy;
        long syncIntervalMillis;
        long memtableBytes;
        int maxImmutableMemtables;
        int bloomBitsPerKey;
        int blockSize;
        Duration tombstoneGrace;
        LongUnaryOperator timestampMillis;
        int compactionMinTables;
        int slowdownTables;
        long compactionBytesPerSecond;
        double flushJitter;
        boolean acceptMissingTables;
        BackgroundPriority backgroundPriority;
        int yieldEveryEntries;
        StorageFiles files;
        Compression compression;
        LongSupplier purgeHorizon;

        Draft(StoreOptions o) {
            syncPolicy = o.syncPolicy;
            syncIntervalMillis = o.syncIntervalMillis;
            memtableBytes = o.memtableBytes;
            maxImmutableMemtables = o.maxImmutableMemtables;
            bloomBitsPerKey = o.bloomBitsPerKey;
            blockSize = o.blockSize;
            tombstoneGrace = o.tombstoneGrace;
            timestampMillis = o.timestampMillis;
            compactionMinTables = o.compactionMinTables;
            slowdownTables = o.slowdownTables;
            compactionBytesPerSecond = o.compactionBytesPerSecond;
            flushJitter = o.flushJitter;
            acceptMissingTables = o.acceptMissingTables;
            backgroundPriority = o.backgroundPriority;
            yieldEveryEntries = o.yieldEveryEntries;
            files = o.files;
            compression = o.compression;
            purgeHorizon = o.purgeHorizon;
        }
    }
}
