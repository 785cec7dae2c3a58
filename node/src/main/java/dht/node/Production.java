package dht.node;

import dht.node.cluster.Cluster;
import dht.node.cluster.ClusterScanner;
import dht.node.cluster.ClusterView;
import dht.node.cluster.Coordinator;
import dht.node.cluster.HybridLogicalClock;
import dht.node.rpc.PeerClient;
import dht.node.rpc.ReplicaEndpoint;
import dht.node.rpc.StoreReplicaEndpoint;
import dht.storage.BackgroundPriority;
import dht.storage.LsmStore;
import dht.storage.MissingFilesException;
import dht.storage.Store;
import dht.storage.StoreOptions;
import dht.storage.SyncPolicy;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;

/** The production storage engine and cluster layer, as {@link Node#start(NodeConfig)} wires them. */
final class Production {
    /** Tombstones younger than this survive compaction, so a replica that was down can still learn of the delete. */
    static final Duration TOMBSTONE_GRACE = Duration.ofDays(1);
    /** A cluster node flushes each memtable at 3/4 to all of --memtable-size, drawn at random. */
    static final double CLUSTER_FLUSH_JITTER = 0.25;

    /** The operator's consent to start without tables that are gone for good (StoreOptions.acceptMissingTables). */
    static final String ACCEPT_MISSING_TABLES = "dht.storage.acceptMissingTables";

    /** The flush and compaction threads' CPU priority: normal, low (nice 19) or idle (SCHED_IDLE). */
    static final String BACKGROUND_PRIORITY = "dht.storage.backgroundPriority";

    /** Entries a flush or compaction writes between yields of its CPU (0: never). */
    static final String YIELD_EVERY = "dht.storage.yieldEvery";

    /** An experiment's knob (docs/benchmarks.md, "A compaction rate limit"): MiB/s, 0 = no limit. */
    static final String COMPACTION_MBPS = "dht.storage.compactionMBps";

    private Production() {
    }

    /**
     * The flush and compaction threads' CPU priority (docs/benchmarks.md, "Flushes and compactions at
     * the lowest CPU priority"): {@value #BACKGROUND_PRIORITY} = normal | low | idle.
     */
    static BackgroundPriority backgroundPriority() {
        String v = JvmSettings.oneOf(BACKGROUND_PRIORITY, null, "normal", "low", "idle");
        return v == null ? StoreOptions.defaults().backgroundPriority() : BackgroundPriority.valueOf(v.toUpperCase(java.util.Locale.ROOT));
    }

    /** -Ddht.storage.yieldEvery=N: a flush or compaction yields its CPU every N entries (0: never; StoreOptions's default if unset). */
    static int yieldEveryEntries() {
        return (int) JvmSettings.wholeNumber(YIELD_EVERY, StoreOptions.defaults().yieldEveryEntries(), 0, Integer.MAX_VALUE, "entries");
    }

    /** -Ddht.storage.compactionMBps=N: a compaction reads at most N MiB/s of its input (0 or unset: no limit), in bytes/s. */
    static long compactionBytesPerSecond() {
        return JvmSettings.wholeNumber(COMPACTION_MBPS, 0, 0, 1L << 20, "MiB/s") << 20;
    }

    /** -Ddht.storage.acceptMissingTables=true: the operator's consent to open without tables gone for good. */
    static boolean acceptMissingTables() {
        return JvmSettings.flag(ACCEPT_MISSING_TABLES, false);
    }

    static Store openStore(NodeConfig config) throws IOException {
        StoreOptions options = StoreOptions.defaults()
                .withSyncPolicy(config.syncEveryWrite() ? SyncPolicy.EVERY_WRITE : SyncPolicy.PERIODIC)
                .withMemtableBytes(config.memtableBytes())
                // Write timestamps are the cluster's hybrid logical clock: microseconds since the epoch.
                .withTombstoneGrace(TOMBSTONE_GRACE, HybridLogicalClock::toEpochMillis)
                .withCompactionBytesPerSecond(compactionBytesPerSecond())
                .withYieldEveryEntries(yieldEveryEntries())
                // Replicas get the same writes: without it they flush and compact in lockstep
                // (docs/benchmarks.md, "Replicas flushing in lockstep"). One node has no one to drift from.
                .withFlushJitter(config.cluster().size() > 1 ? CLUSTER_FLUSH_JITTER : 0)
                .withMissingTablesAccepted(acceptMissingTables())
                .withBackgroundPriority(backgroundPriority());
        try {
            return LsmStore.open(config.dataDir(), options);
        } catch (MissingFilesException e) {
            if (!e.acceptable()) throw e; // no setting opens it: a missing manifest must be put back
            throw new MissingFilesException(e.getMessage() + " (for bin/dht serve: DHT_JAVA_OPTS=-D" + ACCEPT_MISSING_TABLES + "=true)", true);
        }
    }

    static ClusterServices startCluster(String self, List<String> nodes, Store store, Executor storageExecutor,
                                        Duration replicaTimeout, EventLoopGroup loops, boolean batchStoreCalls) {
        Cluster cluster = Cluster.start(self, nodes, store, storageExecutor, replicaTimeout, loops, batchStoreCalls,
                PeerClient::new);
        ReplicaEndpoint endpoint = new StoreReplicaEndpoint(cluster.replicaService());
        return new ClusterServices() {
            @Override
            public Coordinator coordinator() {
                return cluster.coordinator();
            }

            @Override
            public ReplicaEndpoint replicaEndpoint() {
                return endpoint;
            }

            @Override
            public ClusterView view() {
                return cluster.view();
            }

            @Override
            public ClusterScanner scanner() {
                return cluster.scanner();
            }

            @Override
            public void close() {
                cluster.close();
            }

            @Override
            public boolean writesOfOnePassInOrder() {
                return cluster.writesOfOnePassInOrder();
            }
        };
    }
}
