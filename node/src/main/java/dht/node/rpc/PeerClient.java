package dht.node.rpc;

import dht.node.cluster.HybridLogicalClock;
import dht.node.cluster.PeerNetwork;
import dht.node.cluster.PeerThreadFactory;
import dht.node.cluster.Replica;
import dht.node.cluster.ScanSource;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.pool.AbstractChannelPoolHandler;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.FixedChannelPool;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inter-node HTTP client: Netty (epoll when available), a small pool of keep-alive connections
 * per peer and event loop, one deadline per request covering pool wait, connect and answer, and a
 * failure detector.
 *
 * <p>In a node the client shares the HTTP server's event loops, and each peer has one pool (a
 * <em>lane</em>) per loop. A request that a server loop coordinates goes out on a connection of that
 * same loop, and its answer comes back there: the whole call, from the client's request to the
 * replicas' answers and the response, runs on one thread with no hand-off between threads (measured:
 * the hops between separate peer loops and server loops cost more CPU than the requests themselves,
 * see docs/cluster.md). A caller that is not one of the loops is spread over the lanes in turn.
 *
 * <p>Invariants:
 * <ul>
 * <li>A connection carries at most one outstanding request; it goes back to the pool only after a
 *     complete answer on a keep-alive connection. A request that times out closes its connection, so
 *     a frozen peer's late answer can never be read as the answer to another request.</li>
 * <li>A peer is marked down at once when a connection to it is refused, or after
 *     {@value #FAILURES_TO_DOWN} consecutive failures without an HTTP answer when it has given no
 *     answer at all for a whole timeout (so a loaded peer that answers late is not cut off). A
 *     peer that refuses connections is still tried (a refusal costs no timeout, and the first
 *     request after its restart succeeds); to a silent one requests fail immediately, and only the
 *     background probe ({@code GET /v0/status}, one at a time, every {@link #PROBE_INTERVAL}) waits
 *     for it. Any HTTP answer marks the peer up again (a thawed peer answers the pending probe).
 *     An up peer that has answered nothing for {@link #IDLE_PROBE_AFTER} is probed too, so a peer
 *     that dies or freezes while no request goes to it is still found down.</li>
 * <li>No caller thread ever blocks: every result is a future completed on an event loop.</li>
 * </ul>
 */
public final class PeerClient implements PeerNetwork {
    private static final Logger log = LoggerFactory.getLogger(PeerClient.class);

    static final int FAILURES_TO_DOWN = 2;
    /** Short, so a thawed or recovered peer is back within about this long; one probe in flight per peer. */
    static final Duration PROBE_INTERVAL = Duration.ofMillis(100);
    /** An up peer silent this long (no traffic) is asked for its status, so its death is noticed without traffic. */
    static final Duration IDLE_PROBE_AFTER = Duration.ofSeconds(1);
    private static final int MAX_CONNECTIONS_PER_PEER = 32;
    private static final int MAX_PENDING_ACQUIRES = 4096;
    private static final int MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

    private final EventLoopGroup group;
    /** Whether {@link #close()} shuts {@link #group} down (it does not when the group is shared). */
    private final boolean ownsGroup;
    private final EventLoop[] loops;
    private final Class<? extends SocketChannel> channelClass;
    private final Duration timeout;
    private final Map<String, Peer> peers = new LinkedHashMap<>();
    private final ScheduledFuture<?> prober;

    /** With event loops of its own (two). */
    PeerClient(String self, List<String> nodes, Duration timeout) {
        this(self, nodes, timeout, null);
    }

    /**
     * @param sharedLoops the event loops to run on (the HTTP server's; the caller keeps owning them),
     *                    or null for loops of its own; their transport must be epoll when epoll is
     *                    available, NIO otherwise, as the server's {@code Transport.choose()} picks
     */
    public PeerClient(String self, List<String> nodes, Duration timeout, EventLoopGroup sharedLoops) {
        this.timeout = timeout;
        IoHandlerFactory io;
        if (Epoll.isAvailable()) {
            io = EpollIoHandler.newFactory();
            channelClass = EpollSocketChannel.class;
        } else {
            log.warn("native epoll unavailable, peer client uses NIO: {}", Epoll.unavailabilityCause().toString());
            io = NioIoHandler.newFactory();
            channelClass = NioSocketChannel.class;
        }
        this.ownsGroup = sharedLoops == null;
        this.group = ownsGroup ? new MultiThreadIoEventLoopGroup(2, new PeerThreadFactory(), io) : sharedLoops;
        List<EventLoop> all = new java.util.ArrayList<>();
        for (var e : group) all.add((EventLoop) e);
        this.loops = all.toArray(EventLoop[]::new);
        for (String url : nodes) {
            if (!url.equals(self)) peers.put(url, new Peer(url));
        }
        long every = PROBE_INTERVAL.toMillis();
        this.prober = group.next().scheduleWithFixedDelay(this::probe, every, every, TimeUnit.MILLISECONDS);
    }

    @Override
    public Replica replica(String peer, HybridLogicalClock clock, EventLoopGroup batchLoops, boolean batchWrites) {
        return new RemoteReplica(peer, this, clock, batchLoops, batchWrites);
    }

    /** Is the peer believed up (it answered recently, or has not failed yet)? */
    @Override
    public boolean isUp(String peer) {
        Peer p = peers.get(peer);
        return p != null && p.up;
    }

    Duration timeout() {
        return timeout;
    }

    @Override
    public EventLoopGroup loops() {
        return group;
    }

    Class<? extends SocketChannel> channelClass() {
        return channelClass;
    }

    /**
     * Sends one request; the future completes with any HTTP answer, or exceptionally with
     * {@link PeerUnavailableException} (known down, refused, timed out, connection cut).
     */
    CompletableFuture<PeerResponse> send(String peer, HttpMethod method, String uri, HttpHeaders headers, byte[] body) {
        return send(peer, method, uri, headers, body, false);
    }

    private CompletableFuture<PeerResponse> send(String peer, HttpMethod method, String uri, HttpHeaders headers,
                                                 byte[] body, boolean probe) {
        Peer p = peers.get(peer);
        if (p == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("not a peer: " + peer));
        }
        boolean trial = false;
        if (!p.up && !p.downRefused) {
            // a silent peer is reached only by the background probe: a client request never pays its timeout
            if (!probe || !p.trialInFlight.compareAndSet(false, true)) {
                return CompletableFuture.failedFuture(new PeerUnavailableException(peer + " is down", null));
            }
            trial = true;
        }
        Call call = new Call(p, trial);
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri,
                Unpooled.wrappedBuffer(body));
        if (headers != null) request.headers().set(headers);
        request.headers().set(HttpHeaderNames.HOST, p.hostHeader);
        HttpUtil.setContentLength(request, body.length);
        HttpUtil.setKeepAlive(request, true);
        call.start(request);
        return call.result;
    }

    /** Opens the internal scan stream of {@code peer} (see {@link PeerScanStream}); reads start at once. */
    @Override
    public ScanSource openScan(String peer, byte[] start, byte[] end) {
        Peer p = peers.get(peer);
        if (p == null) throw new ScanSource.ScanSourceException("not a peer: " + peer, null);
        if (!p.up && !p.downRefused) throw new ScanSource.ScanSourceException(peer + " is down (silent)", null);
        return PeerScanStream.open(this, peer, p.host, p.port, p.hostHeader, start, end);
    }

    /**
     * Probes every down peer, and every up peer that has answered nothing for {@link #IDLE_PROBE_AFTER}:
     * without traffic a peer that died or froze would otherwise be shown up (in {@code /v0/status},
     * to hinted handoff) until the next request to it failed.
     */
    private void probe() {
        long now = System.nanoTime();
        for (Peer p : peers.values()) {
            if (!p.up) {
                if (!p.trialInFlight.get()) askStatus(p);
            } else if (now - p.lastAnswerNanos > IDLE_PROBE_AFTER.toNanos() && p.idleProbeInFlight.compareAndSet(false, true)) {
                askStatus(p).whenComplete((r, e) -> p.idleProbeInFlight.set(false));
            }
        }
    }

    /** A probe: any HTTP answer marks the peer up, a failure counts toward down. */
    private CompletableFuture<PeerResponse> askStatus(Peer p) {
        return send(p.url, HttpMethod.GET, "/v0/status", null, new byte[0], true);
    }

    @Override
    public void close() {
        prober.cancel(false);
        for (Peer p : peers.values()) {
            for (Lane lane : p.lanes) lane.pool.close();
        }
        if (ownsGroup) group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    }

    /** One peer: its lanes and what the failure detector believes about it. */
    private final class Peer {
        final String url;
        final String host;
        final int port;
        final String hostHeader;
        /** One pool per event loop; a connection, its requests and their deadlines live on its lane's loop. */
        final Lane[] lanes;
        /** Spreads callers that are not on one of the loops over the lanes. */
        private final AtomicInteger nextLane = new AtomicInteger();
        final AtomicInteger consecutiveFailures = new AtomicInteger();
        /** When the peer last gave any HTTP answer: a slow peer under load still answers now and then. */
        volatile long lastAnswerNanos = System.nanoTime();
        final AtomicBoolean trialInFlight = new AtomicBoolean();
        /** A status request to an up but quiet peer is out: one at a time. */
        final AtomicBoolean idleProbeInFlight = new AtomicBoolean();
        volatile boolean up = true;
        /**
         * Down because connections were refused (nothing listens): trying again costs only a refused
         * connect, never a timeout, so requests still go out and the first one after a restart
         * succeeds. A peer down because it is silent (frozen, unreachable) is reached only by the probe.
         */
        volatile boolean downRefused;

        Peer(String url) {
            this.url = url;
            URI u = URI.create(url);
            this.host = u.getHost();
            this.port = u.getPort() > 0 ? u.getPort() : 80;
            this.hostHeader = host + ":" + port;
            int perLane = Math.max(4, MAX_CONNECTIONS_PER_PEER / loops.length);
            this.lanes = new Lane[loops.length];
            for (int i = 0; i < loops.length; i++) lanes[i] = new Lane(loops[i], host, port, perLane);
        }

        /** The lane of the calling loop, so the call never changes threads; otherwise the next in turn. */
        Lane lane() {
            for (Lane lane : lanes) {
                if (lane.loop.inEventLoop()) return lane;
            }
            return lanes[Math.floorMod(nextLane.getAndIncrement(), lanes.length)];
        }

        void succeeded(boolean trial) {
            lastAnswerNanos = System.nanoTime();
            consecutiveFailures.set(0);
            if (trial) trialInFlight.set(false);
            if (!up) {
                up = true;
                log.info("peer {} is up", url);
            }
        }

        void failed(boolean trial, Throwable cause) {
            if (trial) trialInFlight.set(false);
            int n = consecutiveFailures.incrementAndGet();
            // Refused: nobody listens. Otherwise (timeouts, cut connections) only when the peer has
            // not answered anything for a whole timeout: a loaded but live peer that answers some
            // requests late must not be cut off, a frozen one answers nothing at all.
            boolean silent = System.nanoTime() - lastAnswerNanos > timeout.toNanos();
            boolean refused = refused(cause);
            if (!up && refused) downRefused = true;
            if (up && (refused || (n >= FAILURES_TO_DOWN && silent))) {
                downRefused = refused;
                up = false;
                // The reason in words: Netty's annotated exception repeats the peer's address and errno.
                log.warn("peer {} is down after {} failure(s): {}", url, n, refused ? "connection refused" : cause.getMessage());
            }
        }
    }

    /** The connections to one peer that belong to one event loop. */
    private final class Lane {
        final EventLoop loop;
        final FixedChannelPool pool;

        Lane(EventLoop loop, String host, int port, int maxConnections) {
            this.loop = loop;
            Bootstrap b = new Bootstrap().group(loop).channel(channelClass).remoteAddress(host, port)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, timeout.toMillis()))
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.SO_KEEPALIVE, true);
            this.pool = new FixedChannelPool(b, new AbstractChannelPoolHandler() {
                @Override
                public void channelCreated(Channel ch) {
                    ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(MAX_RESPONSE_BYTES),
                            new ResponseHandler());
                }
            }, ChannelHealthChecker.ACTIVE, FixedChannelPool.AcquireTimeoutAction.FAIL,
                    Math.max(1, timeout.toMillis()), maxConnections, MAX_PENDING_ACQUIRES, true, true);
        }
    }

    private static boolean refused(Throwable cause) {
        Throwable c = cause instanceof PeerUnavailableException && cause.getCause() != null ? cause.getCause() : cause;
        return c instanceof ConnectException && !(c instanceof ConnectTimeoutException);
    }

    /** One request: its deadline, its connection once acquired, and the one place it finishes. */
    private final class Call {
        final Peer peer;
        final Lane lane;
        final boolean trial;
        final CompletableFuture<PeerResponse> result = new CompletableFuture<>();
        private final AtomicBoolean finished = new AtomicBoolean();
        private volatile Channel channel;
        private ScheduledFuture<?> deadline;

        Call(Peer peer, boolean trial) {
            this.peer = peer;
            this.lane = peer.lane();
            this.trial = trial;
        }

        void start(FullHttpRequest request) {
            if (lane.loop.inEventLoop()) {
                startOnLoop(request);
            } else {
                // one hop onto the peer's loop; from there on everything for this call runs there
                try {
                    lane.loop.execute(() -> startOnLoop(request));
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    request.release();
                    fail(new PeerUnavailableException("peer client is closed", e));
                }
            }
        }

        private void startOnLoop(FullHttpRequest request) {
            deadline = lane.loop.schedule(() -> fail(new PeerUnavailableException(
                    peer.url + " did not answer within " + timeout.toMillis() + " ms", null)),
                    timeout.toMillis(), TimeUnit.MILLISECONDS);
            lane.pool.acquire().addListener((Future<Channel> f) -> {
                if (!f.isSuccess()) {
                    request.release();
                    fail(new PeerUnavailableException("no connection to " + peer.url + ": " + f.cause(), f.cause()));
                    return;
                }
                Channel ch = f.getNow();
                channel = ch;
                if (finished.get()) {
                    // timed out while waiting for the connection: it is clean, give it back
                    request.release();
                    lane.pool.release(ch);
                    return;
                }
                ch.pipeline().get(ResponseHandler.class).call = this;
                ch.writeAndFlush(request).addListener(w -> {
                    if (!w.isSuccess()) fail(new PeerUnavailableException("write to " + peer.url + " failed: " + w.cause(), w.cause()));
                });
            });
        }

        /** Called on the channel's event loop with a complete answer. */
        void answered(FullHttpResponse response) {
            if (!finished.compareAndSet(false, true)) return;
            deadline.cancel(false);
            PeerResponse r = new PeerResponse(response.status().code(), response.headers().copy(),
                    ByteBufUtil.getBytes(response.content()));
            Channel ch = channel;
            ch.pipeline().get(ResponseHandler.class).call = null;
            if (HttpUtil.isKeepAlive(response)) {
                lane.pool.release(ch);
            } else {
                ch.close().addListener(c -> lane.pool.release(ch));
            }
            peer.succeeded(trial);
            result.complete(r);
        }

        void fail(Throwable cause) {
            if (!finished.compareAndSet(false, true)) return;
            if (deadline != null) deadline.cancel(false);
            Channel ch = channel;
            if (ch != null) {
                // the connection may still carry our request: never reuse it
                ch.close().addListener(c -> lane.pool.release(ch));
            }
            peer.failed(trial, cause);
            result.completeExceptionally(cause instanceof PeerUnavailableException ? cause
                    : new PeerUnavailableException(peer.url + ": " + cause, cause));
        }
    }

    /** Hands the one answer of the outstanding request to its call. */
    private static final class ResponseHandler extends SimpleChannelInboundHandler<FullHttpResponse> {
        volatile Call call;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            Call c = call;
            if (c != null) c.answered(response);
            else ctx.close(); // an answer nobody asked for: the connection is out of step
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            Call c = call;
            if (c != null) c.fail(new PeerUnavailableException("connection to peer closed before the answer", null));
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Call c = call;
            if (c != null) c.fail(new PeerUnavailableException("peer connection failed: " + cause, cause));
            ctx.close();
        }
    }
}
