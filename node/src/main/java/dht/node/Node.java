package dht.node;

import dht.node.admin.Profiler;
import dht.node.cluster.PurgeHorizon;
import dht.node.exec.CoreLocalExecutor;
import dht.node.exec.CpuAffinity;
import dht.node.exec.StorageExecutors;
import dht.node.cluster.ClusterView;
import dht.node.http.AdminRoute;
import dht.node.http.ClusterSizes;
import dht.node.http.CompactRoute;
import dht.node.http.Admission;
import dht.node.http.ConnectionLimit;
import dht.node.http.EntityRoute;
import dht.node.http.PauseWatch;
import dht.node.http.GracefulStop;
import dht.node.http.HttpChannelInitializer;
import dht.node.http.MetricsRoute;
import dht.node.http.ReplicaRoute;
import dht.node.http.MembershipRoute;
import dht.node.http.Route;
import dht.node.http.Responses;
import dht.node.http.Router;
import dht.node.http.ScanRoute;
import dht.node.http.StatusRoute;
import dht.node.http.UiRoute;
import dht.node.metrics.NodeMetrics;
import dht.node.rpc.InternalProtocol;
import dht.storage.BackgroundPriority;
import dht.storage.Store;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running node: the store, the cluster layer over it, and the HTTP server in front.
 *
 * <p>Start order is event loops, listening socket (not yet accepting), store, storage executor,
 * cluster, routes, then accepting; a failure at any step closes what was opened before it and
 * propagates (a busy port as a {@link BindException} before the data directory is touched, a
 * locked data directory as the store's own exception, so the CLI can say so). A client that
 * connects during start waits in the backlog and is served once the node is ready. {@link #close()} is the graceful stop: stop accepting, refuse new requests, let those
 * in flight finish for at most {@link #DRAIN_TIMEOUT}, then close connections (a request whose body
 * is still arriving gets 503 first), cluster, store (which flushes), in that order, all well inside
 * the contract's 10 seconds. Idempotent and thread-safe.
 */
public final class Node implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Node.class);
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(4);
    /** Since the stop began: answers ready are written to clients reading them until then, not later. */
    static final Duration WRITE_OUT_DEADLINE = Duration.ofSeconds(5);
    private static final Duration EXECUTOR_TIMEOUT = Duration.ofSeconds(2);

    /** Opens the storage engine for a node. */
    @FunctionalInterface
    public interface StoreOpener {
        Store open(NodeConfig config) throws IOException;
    }

    private final NodeConfig config;
    private final Store store;
    private final ExecutorService storageExecutor;
    private final ExecutorService scanWorkers;
    private final ExecutorService joinSenders;
    private final ClusterServices cluster;
    private final Admission admission;
    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup ioGroup;
    private final ChannelGroup channels;
    private final Channel serverChannel;
    private final int port;
    private final Profiler profiler;
    private final NodeMetrics metrics;
    private final CountDownLatch closed = new CountDownLatch(1);
    private boolean closing; // guarded by this

    private Node(NodeConfig config, Store store, ExecutorService storageExecutor, ExecutorService scanWorkers,
                 ExecutorService joinSenders, ClusterServices cluster, Admission admission, EventLoopGroup acceptGroup,
                 EventLoopGroup ioGroup, ChannelGroup channels, Channel serverChannel, Profiler profiler,
                 NodeMetrics metrics) {
        this.profiler = profiler;
        this.metrics = metrics;
        this.config = config;
        this.store = store;
        this.storageExecutor = storageExecutor;
        this.scanWorkers = scanWorkers;
        this.joinSenders = joinSenders;
        this.cluster = cluster;
        this.admission = admission;
        this.acceptGroup = acceptGroup;
        this.ioGroup = ioGroup;
        this.channels = channels;
        this.serverChannel = serverChannel;
        this.port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** Starts a node with the production storage engine and cluster layer. */
    public static Node start(NodeConfig config) throws IOException {
        NodeMetrics metrics = new NodeMetrics();
        // One horizon: the store's compactions ask it, the cluster's anti-entropy feeds it.
        PurgeHorizon horizon = NodeWiring.purgeHorizon(config);
        return start(config, c -> NodeWiring.openStore(c, horizon),
                (c, store, executor, loops) -> NodeWiring.startCluster(c, store, executor, loops, metrics.peerCalls(), horizon),
                metrics);
    }

    /** Starts a node over the given store and cluster layer (tests inject slow or faulty ones here). */
    public static Node start(NodeConfig config, StoreOpener storeOpener, ClusterServices.Starter clusterStarter)
            throws IOException {
        return start(config, storeOpener, clusterStarter, new NodeMetrics());
    }

    /** As above, with the metrics the cluster starter was given too; the node closes them. */
    private static Node start(NodeConfig config, StoreOpener storeOpener, ClusterServices.Starter clusterStarter,
                              NodeMetrics metrics) throws IOException {
        long t0 = System.nanoTime();
        long startedAtMillis = System.currentTimeMillis();
        Tuning tuning = config.tuning();
        Transport transport = Transport.choose(tuning.transport(), tuning.pollMicros());
        // Pinning is opt-in: unless asked for, CpuAffinity (FFM) is not touched.
        String affinity = tuning.affinity();
        CoreLocalExecutor perCore = null;
        if (!affinity.equals("none")) {
            List<Integer> allowedCpus = CpuAffinity.allowedCpus();
            if (CoreLocalExecutor.appliesTo(affinity, tuning.storageExecutor(), config.eventLoops(), allowedCpus)) {
                perCore = new CoreLocalExecutor(allowedCpus,
                        CoreLocalExecutor.threadsEach(tuning.storageThreads(), allowedCpus.size()), tuning.storageQueue());
            } else {
                log.info("-D{}={}: threads not pinned ({} event loops, CPUs this process may use: {}; pinning needs "
                        + "one loop per CPU, at least two, and the storage pool)", JvmSettings.AFFINITY, affinity,
                        config.eventLoops(), allowedCpus);
            }
        }
        EventLoopGroup acceptGroup = new MultiThreadIoEventLoopGroup(1,
                Thread.ofPlatform().name("http-accept").factory(), transport.ioHandlerFactory());
        EventLoopGroup ioGroup = new MultiThreadIoEventLoopGroup(config.eventLoops(),
                perCore != null ? perCore.loopThreads("http-io-") : Thread.ofPlatform().name("http-io-", 0).factory(),
                transport.ioHandlerFactory());
        Store store = null;
        ExecutorService storageExecutor = null;
        ExecutorService scanWorkers = null;
        ExecutorService joinSenders = null;
        ClusterServices cluster = null;
        Channel serverChannel = null;
        Profiler profiler = null;
        try {
            // The port first: a busy port must fail before the data directory is touched. The server
            // socket accepts nothing (AUTO_READ off) until the store and the routes are ready.
            AtomicReference<HttpChannelInitializer> pipeline = new AtomicReference<>();
            ServerBootstrap bootstrap = new ServerBootstrap()
                    .group(acceptGroup, ioGroup)
                    .channel(transport.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .option(ChannelOption.AUTO_READ, false)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    // A client may end its side (FIN) right after its last request and still read the
                    // answers: Netty's default closes the connection at that FIN, dropping answers to
                    // requests it had read whole, and a PUT was then applied but never answered.
                    // Not yet whole on epoll (Netty 4.2.18): once the FIN has cleared its read
                    // interests the socket leaves the epoll set, so an answer that outgrows the
                    // socket's send buffer (about 4 MB here) fails where it needs EPOLLOUT
                    // (epoll_ctl ENOENT) and is cut short, then the connection closes.
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32 * 1024, 64 * 1024))
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(pipeline.get());
                        }
                    });
            try {
                serverChannel = bootstrap.bind(config.bindAddress() == null ? new InetSocketAddress(config.port())
                        : new InetSocketAddress(config.bindAddress(), config.port())).sync().channel();
            } catch (Exception e) {
                BindException be = new BindException(String.valueOf(e.getMessage()));
                be.initCause(e);
                throw be;
            }
            store = storeOpener.open(config);
            storageExecutor = perCore != null ? perCore : StorageExecutors.create(tuning.storageExecutor(),
                    tuning.storageQueue(), tuning.storageThreads());
            scanWorkers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("scan-", 0).factory());
            joinSenders = joinSenders(tuning.joinStreamPriority());
            cluster = clusterStarter.start(config, store, storageExecutor, ioGroup);
            Admission admission = Admission.forLimits(config.maxInFlight(), config.maxBodyBytes());
            ConnectionLimit connections = new ConnectionLimit(tuning.maxConnections(),
                    Duration.ofSeconds(tuning.idleTimeoutSeconds()));
            ChannelGroup channels = new DefaultChannelGroup("http", GlobalEventExecutor.INSTANCE);
            StatusReport status = new StatusReport(cluster.view(), store, admission, config.dataDir(),
                    transport.name(), startedAtMillis, t0, config.clusterSecret() != null, config.tombstoneGrace());
            profiler = new Profiler();
            metrics.bind(store, admission, cluster.view());
            metrics.bind(connections);
            Map<String, Route> routes = routes(config, store, cluster, admission, scanWorkers, joinSenders, status,
                    profiler);
            routes.put("/metrics", new MetricsRoute(metrics::scrape));
            dht.node.cluster.ClusterView view = cluster.view();
            routes.put("/ui", new UiRoute(view.self(), () -> uiRows(view)));
            Router router = new Router(routes, metrics.requests(), config.clusterSecret());
            boolean writeRuns = cluster.writesOfOnePassInOrder();
            pipeline.set(new HttpChannelInitializer(config.maxUriBytes(), config.maxHeaderBytes(),
                    config.maxBodyBytes(), config.bodyTimeout(), writeRuns ? whileAlone(router, cluster) : router,
                    admission, channels, writeRuns, config.tls() == null ? null : config.tls().serverContext(),
                    connections));
            // Before Netty's acceptor, which was added when the socket was registered: sheds
            // connections past the bound before an event loop takes them.
            serverChannel.pipeline().addFirst("connection-limit", connections.shedder());
            // After the acceptor.
            serverChannel.pipeline().addLast("accept-errors", new AcceptErrorLog());
            serverChannel.config().setAutoRead(true);
            cluster.finishStart();
            Node node = new Node(config, store, storageExecutor, scanWorkers, joinSenders, cluster, admission,
                    acceptGroup, ioGroup, channels, serverChannel, profiler, metrics);
            log.info("node {} listening on port {} ({}{}), data {}, cluster {}, started in {} ms",
                    config.self(), node.port, transport.name(),
                    perCore != null ? ", threads pinned per CPU " + perCore.cpus() : "",
                    config.dataDir().toAbsolutePath(),
                    String.join(",", config.cluster()), (System.nanoTime() - t0) / 1_000_000);
            if (config.tls() != null) log.info("TLS to clients and peers by {}", config.tls().provider().describe());
            // a node that joined, or was started again on a kept membership, has no --cluster list
            if (config.clusterSecret() == null
                    && (config.cluster().size() > 1 || cluster.view().nodes().size() > 1)) {
                log.warn("no --cluster-secret-file: anyone who reaches port {} can read and write this node's "
                        + "replica data through /internal/ paths", node.port);
            }
            return node;
        } catch (IOException | RuntimeException | Error e) {
            if (serverChannel != null) serverChannel.close().awaitUninterruptibly();
            if (profiler != null) profiler.close();
            // the cluster's peer client runs on ioGroup: close it while the loops still run
            if (cluster != null) closeQuietly(cluster::close, "cluster");
            shutDown(acceptGroup, ioGroup);
            stop(scanWorkers);
            stop(joinSenders);
            stop(storageExecutor);
            if (store != null) closeQuietly(store::close, "store");
            metrics.close();
            throw e;
        }
    }

    private static Map<String, Route> routes(NodeConfig config, Store store, ClusterServices cluster,
                                             Admission admission, ExecutorService scanWorkers,
                                             ExecutorService joinSenders, StatusReport status,
                                             Profiler profiler) {
        ClusterView view = cluster.view();
        java.util.function.Supplier<ClusterSizes> sizes = () -> new ClusterSizes(view.nodes().size(), view.replicationFactor());
        Map<String, Route> routes = new HashMap<>();
        routes.put("/v0/entity", new EntityRoute(cluster.coordinator(), sizes, admission, PauseWatch.process()));
        routes.put("/v0/entities", ScanRoute.publicScan(store, cluster.scanner(), sizes, admission, scanWorkers));
        routes.put("/v0/status", new StatusRoute(status::json, admission));
        ReplicaRoute replicaRoute = new ReplicaRoute(cluster.replicaEndpoint(), admission);
        routes.put(InternalProtocol.ENTITY_PATH, replicaRoute);
        routes.put(InternalProtocol.BATCH_PATH, replicaRoute);
        routes.put(InternalProtocol.TREE_PATH, replicaRoute);
        routes.put(InternalProtocol.TREE_PAGE_PATH, replicaRoute);
        routes.put(InternalProtocol.SCAN_PATH, ScanRoute.internalScan(store, admission, scanWorkers,
                cluster.joinStreams(), joinSenders));
        AdminRoute admin = new AdminRoute(profiler, config.adminToken());
        routes.put("/admin/profile", admin);
        routes.put("/admin/compact", new CompactRoute(store, admin));
        if (cluster.membershipChanges() != null) {
            routes.put(InternalProtocol.MEMBERSHIP_PATH, new MembershipRoute(cluster.membershipChanges(), cluster.leaving(),
                    scanWorkers, admission));
        }
        routes.put(InternalProtocol.PROBE_PATH, (request, slot) -> { // with this node's clock: ClockAgreement
            var r = Responses.empty(HttpResponseStatus.OK);
            long clock = cluster.clock();
            if (clock != 0) r.headers().set(InternalProtocol.CLOCK, Long.toString(clock));
            slot.respond(r);
        });
        return routes;
    }

    /**
     * Completes once this node has left its cluster ({@code bin/dht leave}): its process should then
     * stop, from another thread ({@link #close()} waits for the leave's own answer to be written,
     * which a stop run by the completing thread would hold up until the drain times out).
     */
    public java.util.concurrent.CompletableFuture<Void> left() {
        return cluster.left();
    }

    /** The port the server listens on (useful when the config asked for port 0). */
    public int port() {
        return port;
    }

    /** The listening socket's channel. */
    Channel listeningChannel() {
        return serverChannel;
    }

    public NodeConfig config() {
        return config;
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitClose() throws InterruptedException {
        closed.await();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closing) {
                closedWait();
                return;
            }
            closing = true;
        }
        long t0 = System.nanoTime();
        try {
            serverChannel.close().awaitUninterruptibly();
            admission.close();
            int waiting = admission.busy();
            long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
            while (admission.busy() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            int left = admission.busy();
            if (left > 0) log.warn("stopping with {} requests still in flight after {} ms", left, DRAIN_TIMEOUT.toMillis());
            // Everything answered is written or queued on its connection. Each connection closes
            // after it; one whose request body is still arriving is answered 503 first
            // (GracefulStop). Answers ready but not yet taken by a client that reads them (a large
            // value read slowly) go on until WRITE_OUT_DEADLINE after the stop began, unless the
            // client takes nothing for a second (WriteOutOnStop). A client that got a
            // last answer has up to a second to close its side (LingeringClose) before the rest
            // are closed at once.
            List<io.netty.util.concurrent.Future<?>> told = new ArrayList<>();
            for (Channel ch : channels) {
                told.add(ch.eventLoop().submit(() -> ch.pipeline().fireUserEventTriggered(GracefulStop.STOP)));
            }
            long toldBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            for (var f : told) f.await(Math.max(0, toldBy - System.nanoTime()), TimeUnit.NANOSECONDS);
            long writeOutDeadline = t0 + WRITE_OUT_DEADLINE.toNanos();
            int writingOut = admission.writingOut();
            while (admission.writingOut() > 0 && System.nanoTime() < writeOutDeadline) {
                Thread.sleep(5);
            }
            if (admission.writingOut() > 0) {
                log.warn("stopping with answers still being written to {} connections {} ms after the stop began",
                        admission.writingOut(), WRITE_OUT_DEADLINE.toMillis());
            } else {
                if (writingOut > 0) {
                    log.info("stopping: the answers ready at the stop are written out (or their clients stopped reading), connections: {}",
                            writingOut);
                }
                channels.newCloseFuture().await(1, TimeUnit.SECONDS);
            }
            channels.close().await(1, TimeUnit.SECONDS);
            profiler.close();
            closeQuietly(cluster::close, "cluster");
            stop(scanWorkers);
            stop(joinSenders);
            stop(storageExecutor);
            closeQuietly(store::close, "store");
            shutDown(ioGroup, acceptGroup);
            metrics.close();
            log.info("node {} stopped in {} ms ({} requests were in flight at stop)", config.self(),
                    (System.nanoTime() - t0) / 1_000_000, waiting);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.warn("node {} stop interrupted", config.self());
        } finally {
            closed.countDown();
        }
    }

    private void closedWait() {
        try {
            closed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the event loops together: no quiet period (connections are closed already), 2 s in all. */
    private static void shutDown(EventLoopGroup... groups) {
        java.util.List<io.netty.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
        for (EventLoopGroup g : groups) {
            if (g != null) done.add(g.shutdownGracefully(0, 1, TimeUnit.SECONDS));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        for (var f : done) f.awaitUninterruptibly(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /**
     * The threads that read and send the join streams this node serves: a platform thread per
     * stream, at {@code priority}, so that on a machine with few cores a member's scan of its whole
     * store yields to client requests (a virtual thread takes its carrier's priority, shared).
     */
    private static ExecutorService joinSenders(BackgroundPriority priority) {
        ThreadFactory threads = Thread.ofPlatform().name("join-send-", 0).daemon().factory();
        return Executors.newThreadPerTaskExecutor(task -> threads.newThread(() -> {
            if (!priority.applyToCurrentThread()) log.debug("join stream sender keeps its priority, not {}", priority);
            task.run();
        }));
    }

    private static void stop(ExecutorService executor) {
        if (executor == null) return;
        executor.shutdown();
        try {
            if (!executor.awaitTermination(EXECUTOR_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("executor did not finish its tasks in {} ms; interrupting them", EXECUTOR_TIMEOUT.toMillis());
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private interface Closer {
        void close() throws Exception;
    }

    /** The page's rows as its script first draws them: the members, then those joining and this node if not among them. */
    private static List<UiRoute.Row> uiRows(ClusterView view) {
        Map<String, Boolean> peers = view.peersUp();
        dht.node.cluster.Membership m = view.membership();
        List<String> order = new ArrayList<>(view.nodes());
        for (String n : m.joining()) if (!order.contains(n)) order.add(n);
        if (!order.contains(view.self())) order.add(view.self()); // removed and still running: its own row
        List<UiRoute.Row> rows = new ArrayList<>(order.size());
        for (String n : order) {
            boolean self = n.equals(view.self());
            String role = m.joining().contains(n) ? "joining" : m.leaving().contains(n) ? "leaving"
                    : m.members().contains(n) ? null : "outside";
            rows.add(new UiRoute.Row(n, self || Boolean.TRUE.equals(peers.get(n)), self, role));
        }
        return rows;
    }

    private static void closeQuietly(Closer closer, String what) {
        try {
            closer.close();
        } catch (Exception e) {
            log.error("closing the {} failed", what, e);
        }
    }

    /**
     * {@code router}, its writes starting together only while the cluster still says they reach
     * the store in order: a node started alone stops once another joins it.
     */
    private static dht.node.http.RequestHandler whileAlone(Router router, ClusterServices cluster) {
        return new dht.node.http.RequestHandler() {
            @Override
            public void handle(io.netty.handler.codec.http.FullHttpRequest request, dht.node.http.AnswerSlot slot) {
                router.handle(request, slot);
            }

            @Override
            public boolean mayShareGroupCommit(io.netty.handler.codec.http.FullHttpRequest request) {
                return cluster.writesOfOnePassInOrder() && router.mayShareGroupCommit(request);
            }
        };
    }
}
