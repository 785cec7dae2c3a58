package dht.node.cluster;

import dht.node.exec.BoundedConcurrencyExecutor;
import dht.node.text.Plural;
import dht.storage.Store;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything that makes one node part of a cluster, wired once at startup: placement, the hybrid
 * logical clock, the coordinator, the replica service its peers call, the cluster scanner, the
 * view for the status endpoint, and (with peers) the {@link PeerNetwork}.
 *
 * <p>The store and the storage executor stay owned by the caller; {@link #close()} stops only what
 * this class started (the peer network, and its event loops when it has its own).
 */
public final class Cluster implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Cluster.class);

    private final Coordinator coordinator;
    private final ReplicaService replicaService;
    private final ClusterView view;
    private final ClusterScanner scanner;
    private final PeerNetwork network;
    private final HybridLogicalClock clock;
    private final AntiEntropy antiEntropy;
    private final MembershipState membership;
    /** Set once started ({@link #startRebalancer}); the view reads its counts. */
    private final java.util.concurrent.atomic.AtomicReference<Rebalancer> rebalancer;

    /** See {@link #writesOfOnePassInOrder()}. */
    private final boolean writesOfOnePassInOrder;
    /**
     * The store as given, and as every path here writes it: through the hash trees with a peer
     * network, through a {@link LoneNodeStore} on a node started alone.
     */
    private final Store rawStore;
    private final Store trackedStore;
    /** The tracked store of a node started alone, which says whether it still is; null otherwise. */
    private final LoneNodeStore lone;
    /** Versions handed over for a member that was down when a leave was agreed; null without peers. */
    private final HandedOverHints handedOver;
    /** This node's hints for peers that missed its writes; null when hinted handoff is off. */
    private final HintedHandoff hints;

    private Cluster(Coordinator coordinator, ReplicaService replicaService, ClusterView view,
                    ClusterScanner scanner, PeerNetwork network, HybridLogicalClock clock, boolean writesOfOnePassInOrder,
                    AntiEntropy antiEntropy, MembershipState membership,
                    java.util.concurrent.atomic.AtomicReference<Rebalancer> rebalancer, Store rawStore,
                    Store trackedStore, LoneNodeStore lone, HandedOverHints handedOver, HintedHandoff hints) {
        this.lone = lone;
        this.hints = hints;
        this.handedOver = handedOver;
        this.rawStore = rawStore;
        this.trackedStore = trackedStore;
        this.rebalancer = rebalancer;
        this.membership = membership;
        this.antiEntropy = antiEntropy;
        this.writesOfOnePassInOrder = writesOfOnePassInOrder;
        this.coordinator = coordinator;
        this.replicaService = replicaService;
        this.view = view;
        this.scanner = scanner;
        this.network = network;
        this.clock = clock;
    }

    /**
     * Whether the coordinator's writes made from one event loop in one pass of its loop reach the
     * store in the order they were made, as one batch, with no other replica to reach: then a
     * connection's pipelined writes may start together ({@code dht.node.http.DispatchWindow}).
     * Read per write: a node started alone stops answering true once another node joins it.
     */
    public boolean writesOfOnePassInOrder() {
        if (!writesOfOnePassInOrder) return false;
        if (lone != null && lone.alone()) return true;
        Membership m = membership.current();
        return m.members().size() + m.joining().size() == 1;
    }

    /**
     * A cluster layer with its peer client on loops of its own, store calls not batched and up to
     * 32 MiB of hints (for tests and tools; a node passes its settings to the full form).
     *
     * @param self            this node's URL, one of {@code nodes}
     * @param nodes           every node's URL (the static topology, the same set on every node)
     * @param store           this node's storage engine
     * @param storageExecutor where store calls run (never an event loop)
     * @param replicaTimeout  how long to wait for one peer (connect and answer) before counting it failed
     * @param network         opens the connections to the peers; unused (may be null) when
     *                        {@code nodes} is {@code self} alone (such a cluster cannot grow)
     */
    public static Cluster start(String self, List<String> nodes, Store store, Executor storageExecutor,
                                Duration replicaTimeout, PeerNetwork.Opener network) {
        return start(self, nodes, store, storageExecutor, replicaTimeout, null, false, "all", 0, 32L << 20, null,
                HybridLogicalClock.DEFAULT_MAX_OFFSET, network);
    }

    /**
     * As {@link #start(String, List, Store, Executor, Duration, PeerNetwork.Opener)}, with the peer
     * network on {@code loops} (the HTTP server's event loops, still owned by the caller), so that a
     * request and the replica calls it makes run on one thread; null gives the network loops of its
     * own.
     * With {@code batchStoreCalls} the store calls each of those loops makes in one pass go to the
     * storage executor as one task ({@link StorageDispatcher}); it needs {@code loops}.
     *
     * @param peerBatching which replica calls an event loop makes to one peer in one pass travel as
     *                     one batch ({@code dht.node.rpc.PeerBatcher}): {@code all}, {@code reads} or {@code off}
     * @param writeThreads how many store writes run at once when store calls are batched (0: no
     *                     limit beyond the storage executor's); limited so that writes meeting on
     *                     the store's writer mutex do not convoy, while reads keep the whole pool
     * @param hintBytes    the most bytes of hinted writes kept in memory (0: no hinted handoff)
     * @param hintStorage  where hints are kept across restarts, and their bounds (null: in memory only)
     * @param maxClockOffset how far ahead of this node's physical clock a timestamp from a peer may be
     *                     before it is refused ({@link HybridLogicalClock})
     */
    public static Cluster start(String self, List<String> nodes, Store store, Executor storageExecutor,
                                Duration replicaTimeout, EventLoopGroup loops, boolean batchStoreCalls,
                                String peerBatching, int writeThreads, long hintBytes, HintStorage hintStorage,
                                Duration maxClockOffset,
                                PeerNetwork.Opener network) {
        return start(self, nodes, store, storageExecutor, replicaTimeout, loops, batchStoreCalls, peerBatching,
                writeThreads, hintBytes, hintStorage, maxClockOffset, Duration.ZERO, 0, network);
    }

    /**
     * As the form above, with anti-entropy ({@link AntiEntropy}) exchanging with every peer each
     * {@code antiEntropyInterval} (zero: never; peers' exchanges are served either way), spending
     * at most {@code antiEntropyBytesPerSecond} (0: no limit) of scanned, received and sent bytes.
     * Its full exchanges go to a purge horizon nobody reads.
     */
    public static Cluster start(String self, List<String> nodes, Store store, Executor storageExecutor,
                                Duration replicaTimeout, EventLoopGroup loops, boolean batchStoreCalls,
                                String peerBatching, int writeThreads, long hintBytes, HintStorage hintStorage,
                                Duration maxClockOffset, Duration antiEntropyInterval, long antiEntropyBytesPerSecond,
                                PeerNetwork.Opener network) {
        return start(self, nodes, store, storageExecutor, replicaTimeout, loops, batchStoreCalls, peerBatching,
                writeThreads, hintBytes, hintStorage, maxClockOffset, antiEntropyInterval, antiEntropyBytesPerSecond,
                new PurgeHorizon(self, nodes), network);
    }

    /**
     * As the form above, telling {@code purgeHorizon} of every anti-entropy exchange that completes
     * in full (the store should be the one that horizon limits, wrapped in a
     * {@link LateWriteReportingStore} telling it of late writes).
     */
    public static Cluster start(String self, List<String> nodes, Store store, Executor storageExecutor,
                                Duration replicaTimeout, EventLoopGroup loops, boolean batchStoreCalls,
                                String peerBatching, int writeThreads, long hintBytes, HintStorage hintStorage,
                                Duration maxClockOffset, Duration antiEntropyInterval, long antiEntropyBytesPerSecond,
                                PurgeHorizon purgeHorizon, PeerNetwork.Opener network) {
        return start(self, nodes, store, storageExecutor, replicaTimeout, loops, batchStoreCalls, peerBatching,
                writeThreads, hintBytes, hintStorage, maxClockOffset, antiEntropyInterval, antiEntropyBytesPerSecond,
                purgeHorizon, network, nodes.size());
    }

    /**
     * As the form above, each key kept on {@code replicationFactor} nodes by default (the first of
     * its placement among all {@code nodes}): what anti-entropy keeps in step and the status shows.
     */
    public static Cluster start(String self, List<String> nodes, Store store, Executor storageExecutor,
                                Duration replicaTimeout, EventLoopGroup loops, boolean batchStoreCalls,
                                String peerBatching, int writeThreads, long hintBytes, HintStorage hintStorage,
                                Duration maxClockOffset, Duration antiEntropyInterval, long antiEntropyBytesPerSecond,
                                PurgeHorizon purgeHorizon, PeerNetwork.Opener network, int replicationFactor) {
        if (!nodes.contains(self)) throw new IllegalArgumentException(self + " is not one of " + nodes);
        if (replicationFactor < 1 || replicationFactor > nodes.size()) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " outside 1.." + nodes.size());
        }
        return start(self, Membership.initial(nodes, replicationFactor), null, store, storageExecutor, replicaTimeout,
                loops, batchStoreCalls, peerBatching, writeThreads, hintBytes, hintStorage, maxClockOffset,
                antiEntropyInterval, antiEntropyBytesPerSecond, purgeHorizon, network);
    }

    /**
     * As the form above, from a membership version (its replication factor included) that may
     * change while the node runs ({@link #membership()}), kept in {@code membershipFile} (null:
     * not kept). Placement is among the membership's members; while nodes join or leave, writes
     * go to the pending replicas too ({@link Topology}).
     */
    public static Cluster start(String self, Membership initial, MembershipFile membershipFile, Store store,
                                Executor storageExecutor, Duration replicaTimeout, EventLoopGroup loops,
                                boolean batchStoreCalls, String peerBatching, int writeThreads, long hintBytes,
                                HintStorage hintStorage, Duration maxClockOffset, Duration antiEntropyInterval,
                                long antiEntropyBytesPerSecond, PurgeHorizon purgeHorizon, PeerNetwork.Opener network) {
        List<String> nodes = initial.all();
        int replicationFactor = initial.replicationFactor();
        if (!nodes.contains(self)) throw new IllegalArgumentException(self + " is not one of " + nodes);
        HybridLogicalClock clock = new HybridLogicalClock(maxClockOffset);
        clock.startFrom(store.stats().newestTimestamp());
        Map<String, Replica> replicas = new java.util.concurrent.ConcurrentHashMap<>();
        StorageDispatcher reads = new StorageDispatcher(storageExecutor, batchStoreCalls ? loops : null);
        if (!batchStoreCalls) writeThreads = 0;
        StorageDispatcher writes = writeThreads == 0 ? reads : new StorageDispatcher(
                new BoundedConcurrencyExecutor(storageExecutor, writeThreads), loops);
        // The peers' replicas alone, for hinted handoff: it grows as nodes join and loses those
        // that leave (their hints are dropped); `replicas` keeps them, for calls still under way.
        Map<String, Replica> peerReplicas = new java.util.concurrent.ConcurrentHashMap<>();
        PeerNetwork net = null;
        // A kept membership can change, so a node started alone opens its (empty) peer network too:
        // another node may join it. Its cost until then: idle timers; its writes pass the trees'
        // gate and the late-write reports only once it grows (LoneNodeStore).
        if (nodes.size() > 1 || membershipFile != null) net = network.open(self, nodes, replicaTimeout, loops);
        if (net != null) net.hearClocksWith(clock);
        TreeTransport trees = net == null ? null : net.trees(self);
        // With peers, every path writes through the hash trees, so that they follow each version.
        // They start for the initial membership; anti-entropy retargets them as it changes, and the
        // tracked store stays the one object every path holds.
        HashTrees hashTrees = trees == null ? null : new HashTrees(ExchangePeers.of(self, initial), store);
        Store raw = store;
        if (hashTrees != null) store = hashTrees.tracked();
        LoneNodeStore lone = null;
        if (hashTrees != null && nodes.size() == 1) {
            lone = new LoneNodeStore(raw instanceof LateWriteReportingStore r ? r.unreported() : raw, hashTrees);
            store = lone;
        }
        LoneNodeStore grows = lone;
        replicas.put(self, new LocalReplica(self, store, reads, writes, clock));
        PeerNetwork c = net;
        boolean batch = loops != null && !peerBatching.equals("off");
        // A node joining later gets its replica (and its place in the peer network) before any
        // topology names it. A cluster started as one node without a kept membership (tests and
        // tools) has no peer network and stays one.
        // Every replica call carries the version this node places by (MembershipFence).
        MembershipFence fence = new MembershipFence();
        MembershipState membership = new MembershipState(self, initial, membershipFile, peer -> {
            if (peer.equals(self)) return;
            if (c == null) throw new IllegalStateException("a one-node cluster cannot grow: it has no peer network");
            if (grows != null) grows.grow(); // before any topology, trees' view or horizon names the peer
            c.addPeer(peer); // known peers are left as they are; a retired one is probed again
            Replica r = replicas.computeIfAbsent(peer, p -> c.replica(p, clock, fence, batch, peerBatching.equals("all")));
            peerReplicas.put(peer, r);
        });
        fence.follow(membership);
        ReadRepair readRepair = new ReadRepair(replicas, replicaTimeout, net == null ? null : net.scheduler());
        FullRepair fullRepair = new FullRepair(replicas);
        HintedHandoff hints = null;
        if (net != null && hintBytes > 0) {
            hints = hintStorage == null ? new HintedHandoff(peerReplicas, net::isUp, net.scheduler(), hintBytes)
                    : new HintedHandoff(peerReplicas, net::isUp, net.scheduler(), hintBytes, HintedHandoff.REFUSAL_WINDOW,
                    hintStorage.settings(), hintStorage.tombstoneGrace(),
                    new HintFiles(hintStorage.dir(), hintStorage.syncEveryWrite()), System::currentTimeMillis);
        }
        HandedOverHints handedOver = net == null ? null : new HandedOverHints(peerReplicas, net::isUp, net.scheduler(),
                hintBytes > 0 ? hintBytes : 32L << 20, hintStorage);
        // A hint goes only to a peer that still owns its key: one delivered to a node that lost the
        // key to a join while it was down (after its cleanup) would stay there for good.
        java.util.function.BiPredicate<String, dht.storage.Entry> owns = (peer, e) -> {
            try {
                return membership.topology().keepsOn(e, peer);
            } catch (IllegalArgumentException tooFew) { // more copies than members: every member holds one
                return true;
            }
        };
        if (hints != null) hints.deliverOnlyWhere(owns);
        if (handedOver != null) handedOver.deliverOnlyWhere(owns);
        FirstClockReading firstReading = net == null ? FirstClockReading.none()
                : new FirstClockReading(net::askClocks, clock::heardAnyPeer, replicaTimeout);
        ReplicatingCoordinator coordinator = new ReplicatingCoordinator(membership::topology, replicas, clock,
                readRepair, fullRepair, hints, fence, replicaTimeout, firstReading);
        ReplicaService served = new ReplicaService(store, reads, writes, clock, fence);
        HintedHandoff h = hints;
        // The horizon waits for every member, joining and leaving ones included, as they change.
        purgeHorizon.follow(() -> membership.current().all());
        if (replicationFactor < 1 || replicationFactor > nodes.size()) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " outside 1.." + nodes.size());
        }
        // Every key's replica set is the first replication-factor members of its placement (the
        // default `from`), of the membership version current at each round.
        AntiEntropy antiEntropy = trees == null ? null : new AntiEntropy(self, membership::current, hashTrees,
                served, trees, antiEntropyInterval, antiEntropyBytesPerSecond, purgeHorizon);
        java.util.concurrent.atomic.AtomicReference<Rebalancer> rebalancer = new java.util.concurrent.atomic.AtomicReference<>();
        StaticClusterView view = new StaticClusterView(self, () -> membership.current().members(),
                peer -> c != null && c.isUp(peer),
                () -> repairCounts(readRepair, fullRepair, h, handedOver), () -> clockState(clock),
                () -> h == null ? Map.of() : h.peerCounts(),
                () -> antiEntropy == null ? Map.of() : antiEntropy.counts(),
                () -> membership.current().replicationFactor(), membership::current,
                () -> rebalancer.get() == null ? Map.of() : rebalancer.get().counts(), purgeHorizon);
        NodesClusterScanner scanner = new NodesClusterScanner(self, () -> membership.current().members(), store, (peer, start, end, limit) -> {
            if (c == null) throw new ScanSource.ScanSourceException("no peer client", null);
            return c.openScan(peer, start, end, limit);
        }, clock);
        log.info("cluster started: self {}, {}, replication factor {}, replica timeout {} ms, replica calls batched per loop pass: {}, "
                        + "hints up to {} bytes, concurrent store writes {}", self, Plural.of(nodes.size(), "node"),
                replicationFactor, replicaTimeout.toMillis(), loops == null ? "off" : peerBatching, hints == null ? 0 : hintBytes,
                writeThreads == 0 ? "unlimited" : writeThreads);
        // This node is the only replica, and the writes an event loop makes in one pass reach the
        // store as one task, in the order made (StorageDispatcher).
        boolean inOrder = nodes.size() == 1 && batchStoreCalls && loops != null;
        if (antiEntropy != null) antiEntropy.start();
        if (net != null) {
            // A node that left or was removed is no longer probed, nor kept hints for. Under the
            // membership's lock, against a newer version: MembershipState#apply adds a peer that
            // is back under it, and a listener of an older version must not retire it after that.
            membership.listen(m -> {
                synchronized (membership) {
                    Membership now = membership.current();
                    for (String known : replicas.keySet()) {
                        if (known.equals(self) || m.all().contains(known) || now.all().contains(known)) continue;
                        peerReplicas.remove(known);
                        c.retirePeer(known);
                    }
                }
            });
        }
        return new Cluster(coordinator, served, view, scanner, net, clock, inOrder, antiEntropy, membership, rebalancer,
                raw, store, lone, handedOver, hints);
    }

    private static Map<String, Long> repairCounts(ReadRepair readRepair, FullRepair fullRepair, HintedHandoff hints,
                                                  HandedOverHints handedOver) {
        Map<String, Long> m = new java.util.LinkedHashMap<>();
        m.put("readRepairsSent", readRepair.sent());
        m.put("readRepairsFailed", readRepair.failed());
        m.put("readRepairsTimedOut", readRepair.timedOut());
        HintedHandoff.Counts h = hints == null ? new HintedHandoff.Counts(0, 0, 0, 0, 0) : hints.counts();
        m.put("hintsHeld", h.held());
        m.put("hintsDelivered", h.delivered());
        m.put("hintsDropped", h.dropped());
        m.put("hintsSuperseded", h.superseded());
        m.put("hintsWaiting", h.waiting());
        HintedHandoff.Counts o = handedOver == null ? new HintedHandoff.Counts(0, 0, 0, 0, 0) : handedOver.counts();
        m.put("handOverHintsHeld", o.held());
        m.put("handOverHintsDelivered", o.delivered());
        m.put("handOverHintsDropped", o.dropped());
        m.put("handOverHintsWaiting", o.waiting());
        m.put("fullRepairKeys", fullRepair.keys());
        m.put("fullRepairsSent", fullRepair.sent());
        m.put("fullRepairsFailed", fullRepair.failed());
        return m;
    }

    private static Map<String, Long> clockState(HybridLogicalClock clock) {
        Map<String, Long> m = new java.util.LinkedHashMap<>();
        m.put("maxClockOffsetMillis", clock.maxOffsetMillis());
        m.put("clockBehindPeersMillis", clock.behindPeersMillis());
        m.put("timestampsRefused", clock.refused());
        return m;
    }

    public Coordinator coordinator() {
        return coordinator;
    }

    /** This node's store as its peers reach it, for the internal protocol's server side. */
    public ReplicaService replicaService() {
        return replicaService;
    }

    /** Anti-entropy, which also serves the peers' exchanges; null on a single node. */
    public AntiEntropy antiEntropy() {
        return antiEntropy;
    }

    /** The membership, which may change while the node runs. */
    public MembershipState membership() {
        return membership;
    }

    /**
     * Starts moving data when the membership changes, and keeping it current from the peers
     * ({@link Rebalancer}); null without a peer network (a one-node cluster whose membership is
     * not kept), which cannot change.
     *
     * @param bytesPerSecond the budget of streamed and pushed bytes (0: no limit)
     * @param dataDir        where the join's progress and a pending cleanup are remembered
     * @param start          whether to start it now; else the caller does ({@link Rebalancer#start})
     * @param tombstoneGrace how long the stores keep a tombstone ({@link RemovedWhileRunning})
     */
    public Rebalancer startRebalancer(MembershipChanges changes, MembershipTransport transport, long bytesPerSecond,
                                      java.nio.file.Path dataDir, Store store, boolean start, Duration tombstoneGrace) {
        if (network == null) return null;
        // Its writes and purges go through the hash trees, as every other path's.
        Store s = store == rawStore ? trackedStore : store;
        Rebalancer.HeldHints held = member -> {
            List<HintBatch> all = new java.util.ArrayList<>();
            if (hints != null) all.addAll(hints.held(member));
            if (handedOver != null) all.addAll(handedOver.held(member));
            return all;
        };
        Rebalancer r = new Rebalancer(membership.self(), changes, network, s, clock, bytesPerSecond, transport, dataDir,
                held, replicaService.fence().writes(), tombstoneGrace);
        rebalancer.set(r);
        replicaService.countMovesIn(r::movedIn);
        if (start) r.start();
        return r;
    }

    /** The peer network (null on a one-node cluster that cannot grow), for membership changes and data streaming. */
    public PeerNetwork network() {
        return network;
    }

    public ClusterView view() {
        return view;
    }

    public ClusterScanner scanner() {
        return scanner;
    }

    HybridLogicalClock clock() {
        return clock;
    }

    /**
     * Keeps versions a leaving node handed over for {@code member}, down when the leave was agreed,
     * until it can take them ({@link HandedOverHints}); returns once they are on disk.
     */
    public void handOver(String member, List<dht.storage.Entry> entries) throws java.io.IOException {
        if (handedOver == null) throw new java.io.IOException("a cluster of one node keeps no hand-over");
        handedOver.hold(member, entries);
    }

    @Override
    public void close() {
        Rebalancer r = rebalancer.get();
        if (r != null) r.close();
        if (handedOver != null) handedOver.close();
        if (antiEntropy != null) antiEntropy.close();
        coordinator.close();
        if (network != null) network.close();
    }
}
