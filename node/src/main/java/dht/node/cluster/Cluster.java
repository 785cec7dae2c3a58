package dht.node.cluster;

import dht.node.Counts;
import dht.node.JvmSettings;
import dht.storage.Store;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.HashMap;
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

    /** See {@link #writesOfOnePassInOrder()}. */
    private final boolean writesOfOnePassInOrder;

    private Cluster(Coordinator coordinator, ReplicaService replicaService, ClusterView view,
                    ClusterScanner scanner, PeerNetwork network, HybridLogicalClock clock, boolean writesOfOnePassInOrder) {
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
     * connection's pipelined writes may start together ({@code ResponseSequencer}).
     */
    public boolean writesOfOnePassInOrder() {
        return writesOfOnePassInOrder;
    }

    /**
     * @param self            this node's URL, one of {@code nodes}
     * @param nodes           every node's URL (the static topology, the same set on every node)
     * @param store           this node's storage engine
     * @param storageExecutor where store calls run (never an event loop)
     * @param replicaTimeout  how long to wait for one peer (connect and answer) before counting it failed
     * @param network         opens the connections to the peers; unused (may be null) when
     *                        {@code nodes} is {@code self} alone
     */
    public static Cluster start(String self, List<String> nodes, Store store, Executor storageExecutor,
                                Duration replicaTimeout, PeerNetwork.Opener network) {
        return start(self, nodes, store, storageExecutor, replicaTimeout, null, false, network);
    }

    /**
     * As {@link #start(String, List, Store, Executor, Duration, PeerNetwork.Opener)}, with the peer
     * network on {@code loops} (the HTTP server's event loops, still owned by the caller), so that a
     * request and the replica calls it makes run on one thread; null gives the network loops of its
     * own.
     * With {@code batchStoreCalls} the store calls each of those loops makes in one pass go to the
     * storage executor as one task ({@link StorageDispatcher}); it needs {@code loops}.
     */
    public static Cluster start(String self, List<String> nodes, Store store, Executor storageExecutor,
                                Duration replicaTimeout, EventLoopGroup loops, boolean batchStoreCalls,
                                PeerNetwork.Opener network) {
        if (!nodes.contains(self)) throw new IllegalArgumentException(self + " is not one of " + nodes);
        Placement placement = new Placement(nodes);
        HybridLogicalClock clock = new HybridLogicalClock();
        Map<String, Replica> replicas = new HashMap<>();
        StorageDispatcher reads = new StorageDispatcher(storageExecutor, batchStoreCalls ? loops : null);
        int writeThreads = writeThreads(); // read even when unused, so a bad value is reported
        if (!batchStoreCalls) writeThreads = 0;
        StorageDispatcher writes = writeThreads == 0 ? reads : new StorageDispatcher(
                new BoundedConcurrencyExecutor(storageExecutor, writeThreads), loops);
        replicas.put(self, new LocalReplica(self, store, reads, writes));
        PeerNetwork net = null;
        if (nodes.size() > 1) {
            net = network.open(self, nodes, replicaTimeout, loops);
            String batching = peerBatching();
            boolean batch = loops != null && !batching.equals("off");
            for (String peer : nodes) {
                if (!peer.equals(self)) {
                    replicas.put(peer, net.replica(peer, clock, batch, batching.equals("all")));
                }
            }
        }
        PeerNetwork c = net;
        ReadRepair readRepair = new ReadRepair(replicas);
        FullRepair fullRepair = new FullRepair(replicas);
        HintedHandoff hints = null;
        long hintBytes = hintBytes();
        if (net != null && hintBytes > 0) {
            Map<String, Replica> peers = new HashMap<>(replicas);
            peers.remove(self);
            hints = new HintedHandoff(peers, net::isUp, net.scheduler(), hintBytes);
        }
        ReplicatingCoordinator coordinator = new ReplicatingCoordinator(placement, replicas, clock, readRepair, fullRepair, hints);
        ReplicaService served = new ReplicaService(store, reads, writes, clock);
        HintedHandoff h = hints;
        StaticClusterView view = new StaticClusterView(self, nodes, peer -> c != null && c.isUp(peer),
                () -> repairCounts(readRepair, fullRepair, h));
        NodesClusterScanner scanner = new NodesClusterScanner(self, nodes, store, (peer, start, end) -> {
            if (c == null) throw new ScanSource.ScanSourceException("no peer client", null);
            return c.openScan(peer, start, end);
        });
        log.info("cluster started: self {}, {}, replica timeout {} ms, replica calls batched per loop pass: {}, "
                        + "hints up to {} bytes, concurrent store writes {}", self, Counts.of(nodes.size(), "node"),
                replicaTimeout.toMillis(), loops == null ? "off" : peerBatching(), hints == null ? 0 : hintBytes,
                writeThreads == 0 ? "unlimited" : writeThreads);
        // This node is the only replica, and the writes an event loop makes in one pass reach the
        // store as one task, in the order made (StorageDispatcher).
        boolean inOrder = nodes.size() == 1 && batchStoreCalls && loops != null;
        return new Cluster(coordinator, served, view, scanner, net, clock, inOrder);
    }

    static final String PEER_BATCH_PROPERTY = "dht.peer.batch";

    /**
     * Which replica calls an event loop makes to one peer in one pass travel as one batch
     * ({@link PeerBatcher}): {@code all} (default), {@code reads} or {@code off}, set with
     * {@code -Ddht.peer.batch}. Reads were batched first (closed-loop GET 1.45x, median of eight
     * rounds; docs/benchmarks.md, "Batched replica calls"). Writes joined them on 26 Nov, once a
     * replica applied a batch's writes as one group commit (StorageHandOff): cluster PUT 1.7-1.9x in
     * closed loop and a lower p99 at every fixed rate measured ("Batched replica writes").
     */
    static String peerBatching() {
        return JvmSettings.oneOf(PEER_BATCH_PROPERTY, "all", "all", "reads", "off");
    }

    static final String WRITE_THREADS_PROPERTY = "dht.storage.writeThreads";

    /**
     * How many store writes run at once when store calls are batched, i.e. under
     * {@code --sync periodic} unless {@code -Ddht.storage.batch=false}
     * ({@code -Ddht.storage.writeThreads}, default 8; 0 = as many as the storage pool has threads). Not under {@code --sync every-write}: there concurrent writers
     * share one fsync (group commit), and fewer of them halves throughput (http-server.md).
     * 8 by measurement: at 60,000 PUT/s one node's p99 was lower in five rounds of five with 8
     * writes at once than with 64, and under 10 ms in four of them against none, as it was with the
     * whole pool at 8 threads, which cost reads (docs/benchmarks.md, "Fewer threads for writes");
     * so writes are limited and reads are not. A 3-node cluster showed no gain.
     */
    static int writeThreads() {
        return (int) JvmSettings.wholeNumber(WRITE_THREADS_PROPERTY, 8, 0, 10_000, "threads");
    }

    /** Reads this layer's -D settings, so that a bad one is refused before a node starts anything. */
    public static void checkSettings() {
        peerBatching();
        writeThreads();
        hintBytes();
    }

    static final String HINT_BYTES_PROPERTY = "dht.hints.bytes";

    /**
     * The most bytes of hinted writes kept in memory ({@code -Ddht.hints.bytes}); by default an
     * eighth of the heap, at most 32 MiB, so hints for a long outage cannot crowd out the rest;
     * 0 turns hinted handoff off.
     */
    static long hintBytes() {
        return JvmSettings.wholeNumber(HINT_BYTES_PROPERTY, Math.min(32L << 20, Runtime.getRuntime().maxMemory() / 8),
                0, Long.MAX_VALUE, "bytes");
    }

    private static Map<String, Long> repairCounts(ReadRepair readRepair, FullRepair fullRepair, HintedHandoff hints) {
        Map<String, Long> m = new java.util.LinkedHashMap<>();
        m.put("readRepairsSent", readRepair.sent());
        m.put("readRepairsFailed", readRepair.failed());
        HintedHandoff.Counts h = hints == null ? new HintedHandoff.Counts(0, 0, 0, 0, 0) : hints.counts();
        m.put("hintsHeld", h.held());
        m.put("hintsDelivered", h.delivered());
        m.put("hintsDropped", h.dropped());
        m.put("hintsSuperseded", h.superseded());
        m.put("hintsWaiting", h.waiting());
        m.put("fullRepairKeys", fullRepair.keys());
        m.put("fullRepairsSent", fullRepair.sent());
        m.put("fullRepairsFailed", fullRepair.failed());
        return m;
    }

    public Coordinator coordinator() {
        return coordinator;
    }

    /** This node's store as its peers reach it, for the internal protocol's server side. */
    public ReplicaService replicaService() {
        return replicaService;
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

    @Override
    public void close() {
        coordinator.close();
        if (network != null) network.close();
    }
}
