package dht.node;

import dht.node.cluster.Cluster;
import dht.node.cluster.ClusterScanner;
import dht.node.cluster.ClusterView;
import dht.node.cluster.Coordinator;
import dht.node.cluster.HintStorage;
import dht.node.cluster.HybridLogicalClock;
import dht.node.cluster.LateWriteReportingStore;
import dht.node.cluster.Membership;
import dht.node.cluster.MembershipChangeException;
import dht.node.cluster.MembershipChanges;
import dht.node.cluster.MembershipFile;
import dht.node.cluster.PurgeHorizon;
import dht.node.cluster.Rebalancer;
import dht.node.http.MembershipRoute;
import dht.node.rpc.CaTrust;
import dht.node.rpc.MembershipClient;
import dht.node.rpc.PeerCallMeter;
import dht.node.rpc.PeerClient;
import dht.node.rpc.ReplicaEndpoint;
import dht.node.rpc.StoreReplicaEndpoint;
import dht.node.rpc.TreeEndpoint;
import dht.storage.LsmStore;
import dht.storage.MissingFilesException;
import dht.storage.Store;
import dht.storage.StoreOptions;
import dht.storage.SyncPolicy;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executor;

/** How {@link Node#start(NodeConfig)} builds the production storage engine and cluster layer from a configuration. */
final class NodeWiring {
    /** The hints' directory inside the data directory, beside the store's files (docs/cluster.md, "Hint files"). */
    static final String HINTS_DIR = "hints";
    /** A cluster node flushes each memtable at 3/4 to all of --memtable-size, drawn at random. */
    static final double CLUSTER_FLUSH_JITTER = 0.25;
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(NodeWiring.class);
    /** How long one membership call to another node may take: a join waits for every member's prepare. */
    static final Duration MEMBERSHIP_CALL_TIMEOUT = Duration.ofSeconds(15);

    private NodeWiring() {
    }

    /** The horizon up to which this node's tombstones may be forgotten, fed by its anti-entropy. */
    static PurgeHorizon purgeHorizon(NodeConfig config) {
        return new PurgeHorizon(config.self(), startingNodes(config));
    }

    /**
     * The nodes this node starts among, before its cluster starts: the kept membership's, else
     * {@code --cluster} with the member it joins through. Until the cluster follows the agreed
     * membership, a node that joins or restarts without {@code --cluster} must not count as alone.
     */
    static java.util.List<String> startingNodes(NodeConfig config) {
        try {
            Membership kept = new MembershipFile(config.dataDir()).read();
            if (kept != null) return kept.all();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        if (config.join() == null || config.cluster().contains(config.join())) return config.cluster();
        java.util.List<String> nodes = new java.util.ArrayList<>(config.cluster());
        nodes.add(config.join());
        return nodes;
    }

    /** The store with a purge horizon of its own, which no anti-entropy feeds: in a cluster, no tombstone is forgotten. */
    static Store openStore(NodeConfig config) throws IOException {
        return openStore(config, purgeHorizon(config));
    }

    /**
     * The store, whose compactions forget a tombstone past the grace only before {@code horizon},
     * wrapped so that it tells the horizon of the writes that reach it late (a node started alone
     * may be joined; until then its cluster writes past the wrapper: none can be late).
     */
    static Store openStore(NodeConfig config, PurgeHorizon horizon) throws IOException {
        Tuning tuning = config.tuning();
        boolean clustered = startingNodes(config).size() > 1;
        StoreOptions options = StoreOptions.defaults()
                .withSyncPolicy(config.syncEveryWrite() ? SyncPolicy.EVERY_WRITE : SyncPolicy.PERIODIC)
                .withMemtableBytes(config.memtableBytes())
                // Write timestamps are the cluster's hybrid logical clock: microseconds since the epoch.
                .withTombstoneGrace(config.tombstoneGrace(), HybridLogicalClock::toEpochMillis)
                .withPurgeHorizon(horizon)
                .withCompactionBytesPerSecond(tuning.compactionBytesPerSecond())
                .withYieldEveryEntries(tuning.yieldEvery())
                // Replicas get the same writes: without it they flush and compact in lockstep
                // (docs/benchmarks.md, "Replicas flushing in lockstep"). One node has no one to drift from.
                .withFlushJitter(clustered ? CLUSTER_FLUSH_JITTER : 0)
                .withMissingTablesAccepted(tuning.acceptMissingTables())
                .withBackgroundPriority(tuning.backgroundPriority())
                .withCompression(config.compression());
        try {
            Store store = LsmStore.open(config.dataDir(), options);
            return new LateWriteReportingStore(store, horizon);
        } catch (MissingFilesException e) {
            if (!e.acceptable()) throw e; // no setting opens it: a missing manifest must be put back
            throw new MissingFilesException(e.getMessage() + " (for bin/dht serve: DHT_JAVA_OPTS=-D" + JvmSettings.ACCEPT_MISSING_TABLES + "=true)", true);
        }
    }

    /** The TLS context of connections to peers, or null for plain HTTP. */
    private static SslContext peerTls(NodeConfig config) {
        if (config.tls() == null) return null;
        try {
            return config.tls().clientContext();
        } catch (SSLException e) {
            throw new IllegalArgumentException("cannot set up TLS to peers: " + e.getMessage(), e);
        }
    }

    static ClusterServices startCluster(NodeConfig config, Store store, Executor storageExecutor, EventLoopGroup loops) {
        return startCluster(config, store, storageExecutor, loops, PeerCallMeter.NONE, purgeHorizon(config));
    }

    /**
     * As above, telling {@code peerCalls} how every call to a peer ended and {@code horizon} (the
     * one {@code store} was opened with) of every full anti-entropy exchange.
     */
    static ClusterServices startCluster(NodeConfig config, Store store, Executor storageExecutor, EventLoopGroup loops,
                                        PeerCallMeter peerCalls, PurgeHorizon horizon) {
        NodeConfig resumed;
        try {
            resumed = UnfinishedJoin.resume(config);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return startAs(resumed, store, storageExecutor, loops, peerCalls, horizon);
    }

    private static ClusterServices startAs(NodeConfig config, Store store, Executor storageExecutor, EventLoopGroup loops,
                                           PeerCallMeter peerCalls, PurgeHorizon horizon) {
        Tuning tuning = config.tuning();
        MembershipFile membershipFile = new MembershipFile(config.dataDir());
        javax.net.ssl.SSLContext membershipTls = config.tls() == null ? null : CaTrust.context(config.tls().ca());
        MembershipClient membershipCalls = new MembershipClient(MEMBERSHIP_CALL_TIMEOUT, config.clusterSecret(), membershipTls);
        JoinThrough through = new JoinThrough(config, membershipCalls,
                new MembershipClient(JoinThrough.JOIN_CALL_TIMEOUT, config.clusterSecret(), membershipTls));
        Membership membership;
        Membership stored;
        // A node joining for the first time starts on the version it will join on, unagreed and
        // kept nowhere; it asks to join once it serves (finishStart).
        Membership joinsFrom = null;
        Path asked = config.dataDir().resolve(MembershipFile.JOIN_ASKED);
        try {
            Membership kept = membershipFile.read();
            stored = kept;
            if (kept == null && config.join() != null) {
                Membership current = through.membership();
                if (current.joining().contains(config.self()) && Files.exists(asked)) {
                    // Asked from this directory and agreed, but never kept here (a crash, or an
                    // answer lost): take it, as a restart of a joining node would, and stream.
                    log.info("{} already lists {} as joining (membership version {}): going on with that join",
                            config.join(), config.self(), current.version());
                    membership = current;
                    membershipFile.write(membership);
                    Files.deleteIfExists(asked);
                } else {
                    through.checkJoinable(current);
                    joinsFrom = current;
                    membership = joinsFrom.withJoining(config.self());
                }
            } else {
                membership = StartingMembership.choose(config, kept);
                if (!membership.equals(stored)) membershipFile.write(membership);
                if (config.join() != null && !membership.all().contains(config.join())) {
                    log.warn("--join {} ignored: the data directory keeps this node's membership (version {}, members {}), "
                            + "which does not list it; a node joins another cluster from an empty data directory",
                            config.join(), membership.version(), membership.members());
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Cluster cluster = Cluster.start(config.self(), membership, membershipFile, store, storageExecutor,
                config.replicaTimeout(), loops, config.batchStoreCalls(), tuning.peerBatch(), tuning.writeThreads(),
                config.hints().bytesPerPeer() == 0 ? 0 : tuning.hintBytes(),
                new HintStorage(config.dataDir().resolve(HINTS_DIR), config.syncEveryWrite(), config.tombstoneGrace(), config.hints()),
                config.maxClockOffset(), config.antiEntropy().interval(), config.antiEntropy().bytesPerSecond(), horizon,
                (me, nodes, timeout, peerLoops) -> new PeerClient(me, nodes, timeout, peerLoops,
                        peerCalls, config.clusterSecret(), peerTls(config),
                        // half the idle timeout: peers are meant to share it (README)
                        Duration.ofSeconds(config.tuning().idleTimeoutSeconds()).dividedBy(2)));
        MembershipChanges changes = new MembershipChanges(cluster.membership(), membershipCalls,
                peer -> cluster.network() != null && cluster.network().isUp(peer), cluster::handOver);
        cluster.replicaService().fence().pullWith(changes::pullFrom);
        Rebalancer rebalancer = cluster.startRebalancer(changes, membershipCalls, config.rebalanceBytesPerSecond(),
                config.dataDir(), store, joinsFrom == null, config.tombstoneGrace());
        Membership starting = membership;
        long joinsFromVersion = joinsFrom == null ? -1 : joinsFrom.version();
        // A restart (a membership was kept) may have missed a commit while it was down: learn it
        // before the server answers anything, not at the first pull (MembershipChanges#catchUp).
        if (rebalancer != null && stored != null) changes.catchUp(MembershipChanges.SYNC_MILLIS);
        ReplicaEndpoint replicas = new StoreReplicaEndpoint(cluster.replicaService());
        ReplicaEndpoint trees = cluster.antiEntropy() == null ? null : new TreeEndpoint(cluster.antiEntropy());
        ReplicaEndpoint endpoint = trees == null ? replicas
                : request -> TreeEndpoint.serves(request.uri()) ? trees.handle(request) : replicas.handle(request);
        return new ClusterServices() {
            @Override
            public Coordinator coordinator() {
                return cluster.coordinator();
            }

            @Override
            public long clock() {
                return cluster.replicaService().clock();
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

            @Override
            public void finishStart() throws IOException {
                if (joinsFromVersion < 0) return;
                Membership agreed;
                // Marks that this directory asked: a restart with --join after an answer lost takes
                // the join if the member agreed (startCluster), where another node's is refused.
                // An earlier start from this directory asked too: that ask may be agreed yet (a member
                // frozen makes it wait up to a call's timeout), and this one refused for it.
                boolean askedBefore = Files.exists(asked);
                Files.writeString(asked, UnfinishedJoin.mark(starting.version(), config.join()));
                log.info("asking {} to let {} join (from membership version {}): every member prepares it, which "
                        + "takes up to {} s for one that does not answer", config.join(), config.self(), joinsFromVersion,
                        MEMBERSHIP_CALL_TIMEOUT.toSeconds());
                try {
                    agreed = through.join(joinsFromVersion);
                } catch (MembershipChangeException e) {
                    // A refusal changed nothing, unless an earlier ask is agreed since. No answer (or one
                    // lost): the member may have agreed all the same, or may still; outcome() finds out,
                    // or says it cannot, the mark kept.
                    agreed = e.outcome() == MembershipChangeException.Outcome.NOTHING_CHANGED && !askedBefore ? null
                            : through.outcome(starting, joinsFromVersion, e);
                    if (agreed == null) {
                        Files.deleteIfExists(asked);
                        throw new JoinRefusedException("cannot join through " + config.join() + ": " + e.getMessage());
                    }
                } catch (JoinRefusedException e) {
                    Files.deleteIfExists(asked);
                    throw e;
                }
                if (!JoinThrough.sameJoin(agreed, starting)) {
                    throw new JoinRefusedException(config.join() + " agreed on membership version " + agreed.version()
                            + " (members " + agreed.members() + ", joining " + agreed.joining() + "), not the version "
                            + config.self() + " started on; start it again with --join to go on with that join");
                }
                membershipFile.write(agreed);
                // A member down when it was agreed is its laggard: this node ends the join, and must know.
                cluster.membership().recordLaggards(agreed);
                Files.deleteIfExists(asked);
                rebalancer.start();
            }

            @Override
            public MembershipChanges membershipChanges() {
                return changes;
            }

            @Override
            public dht.node.cluster.JoinStreams joinStreams() {
                return rebalancer == null ? null : rebalancer.joinStreams();
            }

            @Override
            public MembershipRoute.Leaving leaving() {
                return rebalancer == null ? url -> {
                    throw new MembershipChangeException(409, "a cluster of one node cannot change");
                } : rebalancer::leave;
            }

            @Override
            public java.util.concurrent.CompletableFuture<Void> left() {
                return rebalancer == null ? ClusterServices.super.left() : rebalancer.left();
            }
        };
    }
}
