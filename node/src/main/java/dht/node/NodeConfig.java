package dht.node;

import dht.node.cluster.AntiEntropySettings;
import dht.node.cluster.HintSettings;
import dht.node.rpc.ClusterSecret;
import dht.node.rpc.TlsFiles;
import dht.storage.Compression;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything a node needs to start, read once: built by {@code bin/dht serve} from its flags, with
 * its {@code -D} tuning knobs in {@link #tuning()} ({@link JvmSettings#read()}).
 *
 * @param port            HTTP port for the public and internal API
 * @param dataDir         the storage engine's directory (locked while the node runs)
 * @param self            this node's URL; one of {@code cluster}
 * @param cluster         every node's URL, the same set on every node
 * @param maxInFlight     requests being worked on at once; past it the node answers 503
 * @param maxBodyBytes    largest request body (413 past it)
 * @param maxUriBytes     longest request line (414 past it)
 * @param maxHeaderBytes  largest header block (431 past it)
 * @param replicaTimeout  how long a coordinator waits for one replica before counting it failed
 * @param syncEveryWrite  true: fsync the log before acknowledging (survives power loss);
 *                        false: the OS writes it back, synced periodically (survives a process kill)
 * @param memtableBytes   size of the memtable before it is flushed to a table
 * @param adminToken      if non-null, admin endpoints also answer non-loopback clients presenting it
 * @param ioThreads       HTTP event loops (serving clients and peers alike); 0 for one per core, which
 *                        suits one node per machine (see {@link #eventLoops()})
 * @param bodyTimeout     how long a request body may go without a byte before it is answered 408 and
 *                        its connection closed (see {@code RequestAssembler})
 * @param tuning          the {@code -D} knobs
 * @param maxClockOffset  how far ahead of this node's clock a peer's timestamp may be; one further
 *                        ahead is refused (docs/cluster.md, "Timestamps")
 * @param compression     the codec new tables' data blocks are written with; tables written with
 *                        another keep it until compaction rewrites them
 * @param clusterSecret   what every internal request must prove (see {@link ClusterSecret}), the same on
 *                        every node; null: internal paths are open to anyone who reaches the port
 * @param bindAddress     the address to listen on (a host name or IP literal); null: every interface
 * @param tls             HTTPS only, to clients and peers alike (every URL {@code https://}); null: plain HTTP
 * @param hints           hinted handoff's window, bytes per peer and delivery rate
 *                        ({@code --hint-window}, {@code --hint-bytes}, {@code --hint-rate})
 * @param antiEntropy     how often this node compares its keys with each peer's and exchanges what
 *                        differs, and its bytes/s budget (docs/cluster.md, "Anti-entropy")
 * @param tombstoneGrace  the least time a tombstone (or a value past its expiry) is kept; past it,
 *                        compaction forgets it once every peer is known to hold it
 *                        (docs/design.md, "Forgetting tombstones safely"); also the age past
 *                        which a hint is dropped
 * @param replicationFactor how many copies a key has by default (the default {@code from}), 1 to the
 *                        size of {@code cluster}; 0 given means the size of {@code cluster}, so a
 *                        static cluster keeps every key on every node ({@code --replication-factor})
 * @param join            a member's URL to join the cluster through ({@code --join}), or null; used only
 *                        when the data directory keeps no membership yet
 * @param rebalanceBytesPerSecond the budget of bytes streamed or pushed when the membership changes
 *                        ({@code --rebalance-bytes-per-second}); 0: no limit
 */
public record NodeConfig(int port, Path dataDir, String self, List<String> cluster, int maxInFlight,
                         int maxBodyBytes, int maxUriBytes, int maxHeaderBytes, Duration replicaTimeout,
                         boolean syncEveryWrite, long memtableBytes, String adminToken, int ioThreads,
                         Duration bodyTimeout, Tuning tuning, Duration maxClockOffset, Compression compression,
                         ClusterSecret clusterSecret, String bindAddress, TlsFiles tls, HintSettings hints,
                         AntiEntropySettings antiEntropy, Duration tombstoneGrace, int replicationFactor, String join,
                         long rebalanceBytesPerSecond) {

    public static final int DEFAULT_MAX_IN_FLIGHT = 1024;
    public static final int DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
    public static final int DEFAULT_MAX_URI_BYTES = 8 * 1024;
    public static final int DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
    public static final Duration DEFAULT_REPLICA_TIMEOUT = Duration.ofMillis(1000);
    public static final long DEFAULT_MEMTABLE_BYTES = 16L * 1024 * 1024;
    public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_MAX_CLOCK_OFFSET = Duration.ofMillis(500);
    public static final Duration DEFAULT_TOMBSTONE_GRACE = Duration.ofDays(1);
    /** Measured in docs/benchmarks.md, "Block compression". */
    public static final Compression DEFAULT_COMPRESSION = Compression.LZ4;
    /** What a move of data for a membership change may read or send per second by default. */
    public static final long DEFAULT_REBALANCE_BYTES_PER_SECOND = 32L << 20;

    public NodeConfig {
        cluster = List.copyOf(cluster);
        java.util.Objects.requireNonNull(tuning, "tuning");
        java.util.Objects.requireNonNull(compression, "compression");
        if (!bodyTimeout.isPositive()) throw new IllegalArgumentException("--body-timeout must be positive, got " + bodyTimeout);
        if (ioThreads < 0) throw new IllegalArgumentException("--io-threads must be 0 (one per core) or positive, got " + ioThreads);
        java.util.Objects.requireNonNull(maxClockOffset, "maxClockOffset");
        if (maxClockOffset.isNegative()) throw new IllegalArgumentException("--max-clock-offset must not be negative, got " + maxClockOffset);
        java.util.Objects.requireNonNull(hints, "hints");
        java.util.Objects.requireNonNull(antiEntropy, "antiEntropy");
        java.util.Objects.requireNonNull(tombstoneGrace, "tombstoneGrace");
        if (!tombstoneGrace.isPositive()) throw new IllegalArgumentException("--tombstone-grace must be positive, got " + tombstoneGrace);
        if (!cluster.contains(self)) {
            throw new IllegalArgumentException("--self " + self + " is not one of --cluster " + String.join(",", cluster));
        }
        if (rebalanceBytesPerSecond < 0) {
            throw new IllegalArgumentException("--rebalance-bytes-per-second must be 0 or more, got " + rebalanceBytesPerSecond);
        }
        if (replicationFactor == 0) replicationFactor = cluster.size();
        if (replicationFactor < 1 || replicationFactor > cluster.size()) {
            throw new IllegalArgumentException("--replication-factor must be 1.." + cluster.size()
                    + " (the number of nodes in --cluster), got " + replicationFactor);
        }
    }

    /** With the replication factor the size of {@code cluster}: every key on every node. */
    public NodeConfig(int port, Path dataDir, String self, List<String> cluster, int maxInFlight,
                      int maxBodyBytes, int maxUriBytes, int maxHeaderBytes, Duration replicaTimeout,
                      boolean syncEveryWrite, long memtableBytes, String adminToken, int ioThreads,
                      Duration bodyTimeout, Tuning tuning, Duration maxClockOffset, Compression compression,
                      ClusterSecret clusterSecret, String bindAddress, TlsFiles tls, HintSettings hints,
                      AntiEntropySettings antiEntropy) {
        this(port, dataDir, self, cluster, maxInFlight, maxBodyBytes, maxUriBytes, maxHeaderBytes, replicaTimeout,
                syncEveryWrite, memtableBytes, adminToken, ioThreads, bodyTimeout, tuning, maxClockOffset,
                compression, clusterSecret, bindAddress, tls, hints, antiEntropy, DEFAULT_TOMBSTONE_GRACE, 0, null,
                DEFAULT_REBALANCE_BYTES_PER_SECOND);
    }

    /** Joining no cluster, with the default rebalance budget. */
    public NodeConfig(int port, Path dataDir, String self, List<String> cluster, int maxInFlight,
                      int maxBodyBytes, int maxUriBytes, int maxHeaderBytes, Duration replicaTimeout,
                      boolean syncEveryWrite, long memtableBytes, String adminToken, int ioThreads,
                      Duration bodyTimeout, Tuning tuning, Duration maxClockOffset, Compression compression,
                      ClusterSecret clusterSecret, String bindAddress, TlsFiles tls, HintSettings hints,
                      AntiEntropySettings antiEntropy, int replicationFactor) {
        this(port, dataDir, self, cluster, maxInFlight, maxBodyBytes, maxUriBytes, maxHeaderBytes, replicaTimeout,
                syncEveryWrite, memtableBytes, adminToken, ioThreads, bodyTimeout, tuning, maxClockOffset,
                compression, clusterSecret, bindAddress, tls, hints, antiEntropy, DEFAULT_TOMBSTONE_GRACE, replicationFactor, null,
                DEFAULT_REBALANCE_BYTES_PER_SECOND);
    }

    /** With the default compression, no cluster secret, every interface, plain HTTP. */
    public NodeConfig(int port, Path dataDir, String self, List<String> cluster, int maxInFlight,
                      int maxBodyBytes, int maxUriBytes, int maxHeaderBytes, Duration replicaTimeout,
                      boolean syncEveryWrite, long memtableBytes, String adminToken, int ioThreads,
                      Duration bodyTimeout, Tuning tuning, Duration maxClockOffset, HintSettings hints) {
        this(port, dataDir, self, cluster, maxInFlight, maxBodyBytes, maxUriBytes, maxHeaderBytes, replicaTimeout,
                syncEveryWrite, memtableBytes, adminToken, ioThreads, bodyTimeout, tuning, maxClockOffset,
                DEFAULT_COMPRESSION, null, null, null, hints, AntiEntropySettings.DEFAULTS, DEFAULT_TOMBSTONE_GRACE,
                0, null, DEFAULT_REBALANCE_BYTES_PER_SECOND);
    }

    /** With the default max clock offset and compression, no cluster secret, every interface, plain HTTP. */
    public NodeConfig(int port, Path dataDir, String self, List<String> cluster, int maxInFlight,
                      int maxBodyBytes, int maxUriBytes, int maxHeaderBytes, Duration replicaTimeout,
                      boolean syncEveryWrite, long memtableBytes, String adminToken, int ioThreads,
                      Duration bodyTimeout, Tuning tuning) {
        this(port, dataDir, self, cluster, maxInFlight, maxBodyBytes, maxUriBytes, maxHeaderBytes, replicaTimeout,
                syncEveryWrite, memtableBytes, adminToken, ioThreads, bodyTimeout, tuning, DEFAULT_MAX_CLOCK_OFFSET,
                DEFAULT_COMPRESSION, null, null, null, HintSettings.DEFAULTS, AntiEntropySettings.DEFAULTS, DEFAULT_TOMBSTONE_GRACE,
                0, null, DEFAULT_REBALANCE_BYTES_PER_SECOND);
    }

    /** With the default compression. */
    public NodeConfig(int port, Path dataDir, String self, List<String> cluster, int maxInFlight,
                      int maxBodyBytes, int maxUriBytes, int maxHeaderBytes, Duration replicaTimeout,
                      boolean syncEveryWrite, long memtableBytes, String adminToken, int ioThreads,
                      Duration bodyTimeout, Tuning tuning, Duration maxClockOffset) {
        this(port, dataDir, self, cluster, maxInFlight, maxBodyBytes, maxUriBytes, maxHeaderBytes, replicaTimeout,
                syncEveryWrite, memtableBytes, adminToken, ioThreads, bodyTimeout, tuning, maxClockOffset,
                DEFAULT_COMPRESSION, null, null, null, HintSettings.DEFAULTS, AntiEntropySettings.DEFAULTS, DEFAULT_TOMBSTONE_GRACE,
                0, null, DEFAULT_REBALANCE_BYTES_PER_SECOND);
    }

    /** With the default max clock offset. */
    public NodeConfig(int port, Path dataDir, String self, List<String> cluster, int maxInFlight,
                      int maxBodyBytes, int maxUriBytes, int maxHeaderBytes, Duration replicaTimeout,
                      boolean syncEveryWrite, long memtableBytes, String adminToken, int ioThreads,
                      Duration bodyTimeout, Tuning tuning, Compression compression) {
        this(port, dataDir, self, cluster, maxInFlight, maxBodyBytes, maxUriBytes, maxHeaderBytes, replicaTimeout,
                syncEveryWrite, memtableBytes, adminToken, ioThreads, bodyTimeout, tuning, DEFAULT_MAX_CLOCK_OFFSET,
                compression, null, null, null, HintSettings.DEFAULTS, AntiEntropySettings.DEFAULTS, DEFAULT_TOMBSTONE_GRACE,
                0, null, DEFAULT_REBALANCE_BYTES_PER_SECOND);
    }

    /**
     * The event loops to run: {@code ioThreads}, or one per core when it is 0. Not Netty's default
     * (twice the cores): no store call runs on a loop, so a loop never blocks and a second one per
     * core only splits the same requests into more, emptier passes, each with its own wake-up and
     * hand-off to a storage thread (docs/benchmarks.md, "One event loop per core").
     */
    public int eventLoops() {
        return ioThreads == 0 ? Runtime.getRuntime().availableProcessors() : ioThreads;
    }

    /**
     * Whether event loops hand store calls over in batches (see {@code StorageDispatcher}): on by
     * default, off by default when every write is fsynced (docs/http-server.md says why). An
     * explicit {@code -Ddht.storage.batch} decides either way.
     */
    public boolean batchStoreCalls() {
        return tuning.storageBatch() != null ? tuning.storageBatch() : !syncEveryWrite;
    }

    /** This configuration with other {@code -D} knobs. */
    public NodeConfig withTuning(Tuning other) {
        return new NodeConfig(port, dataDir, self, cluster, maxInFlight, maxBodyBytes, maxUriBytes, maxHeaderBytes,
                replicaTimeout, syncEveryWrite, memtableBytes, adminToken, ioThreads, bodyTimeout, other, maxClockOffset,
                compression, clusterSecret, bindAddress, tls, hints, antiEntropy, tombstoneGrace, replicationFactor, join, rebalanceBytesPerSecond);
    }

    /** This configuration with another cluster secret (null for none). */
    public NodeConfig withClusterSecret(ClusterSecret secret) {
        return new NodeConfig(port, dataDir, self, cluster, maxInFlight, maxBodyBytes, maxUriBytes, maxHeaderBytes,
                replicaTimeout, syncEveryWrite, memtableBytes, adminToken, ioThreads, bodyTimeout, tuning, maxClockOffset,
                compression, secret, bindAddress, tls, hints, antiEntropy, tombstoneGrace, replicationFactor, join, rebalanceBytesPerSecond);
    }

    /** This configuration listening on {@code address} only (null: every interface). */
    public NodeConfig withBindAddress(String address) {
        return new NodeConfig(port, dataDir, self, cluster, maxInFlight, maxBodyBytes, maxUriBytes, maxHeaderBytes,
                replicaTimeout, syncEveryWrite, memtableBytes, adminToken, ioThreads, bodyTimeout, tuning, maxClockOffset,
                compression, clusterSecret, address, tls, hints, antiEntropy, tombstoneGrace, replicationFactor, join, rebalanceBytesPerSecond);
    }

    /** This configuration speaking HTTPS with {@code files} (null: plain HTTP). */
    public NodeConfig withTls(TlsFiles files) {
        return new NodeConfig(port, dataDir, self, cluster, maxInFlight, maxBodyBytes, maxUriBytes, maxHeaderBytes,
                replicaTimeout, syncEveryWrite, memtableBytes, adminToken, ioThreads, bodyTimeout, tuning, maxClockOffset,
                compression, clusterSecret, bindAddress, files, hints, antiEntropy, tombstoneGrace, replicationFactor, join, rebalanceBytesPerSecond);
    }

    /** This configuration keeping {@code factor} copies of each key by default (0: one on every node). */
    public NodeConfig withReplicationFactor(int factor) {
        return new NodeConfig(port, dataDir, self, cluster, maxInFlight, maxBodyBytes, maxUriBytes, maxHeaderBytes,
                replicaTimeout, syncEveryWrite, memtableBytes, adminToken, ioThreads, bodyTimeout, tuning, maxClockOffset,
                compression, clusterSecret, bindAddress, tls, hints, antiEntropy, tombstoneGrace, factor, join, rebalanceBytesPerSecond);
    }

    /** This configuration joining a running cluster through {@code member} ({@code --join}). */
    public NodeConfig withJoin(String member) {
        return new NodeConfig(port, dataDir, self, cluster, maxInFlight, maxBodyBytes, maxUriBytes, maxHeaderBytes,
                replicaTimeout, syncEveryWrite, memtableBytes, adminToken, ioThreads, bodyTimeout, tuning, maxClockOffset,
                compression, clusterSecret, bindAddress, tls, hints, antiEntropy, tombstoneGrace, replicationFactor, member,
                rebalanceBytesPerSecond);
    }

    /** A single node on {@code port} with every other setting at its default; for tests and trying things out. */
    public static NodeConfig single(int port, Path dataDir) {
        String self = "http://localhost:" + port;
        return new NodeConfig(port, dataDir, self, List.of(self), DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_BODY_BYTES,
                DEFAULT_MAX_URI_BYTES, DEFAULT_MAX_HEADER_BYTES, DEFAULT_REPLICA_TIMEOUT, false,
                DEFAULT_MEMTABLE_BYTES, null, 0, DEFAULT_BODY_TIMEOUT, Tuning.defaults(), DEFAULT_COMPRESSION);
    }
}
