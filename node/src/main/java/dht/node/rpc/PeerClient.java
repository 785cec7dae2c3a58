package dht.node.rpc;

import dht.node.cluster.HybridLogicalClock;
import dht.node.cluster.MembershipFence;
import dht.node.cluster.PeerNetwork;
import dht.node.cluster.Replica;
import dht.node.cluster.ScanSource;
import dht.node.cluster.TreeTransport;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The inter-node HTTP client, as the cluster layer's {@link PeerNetwork}: calls with deadlines
 * ({@link PeerCall}) over a pool of keep-alive connections per peer and event loop
 * ({@link PeerPool}), gated by a {@link FailureDetector} per peer, which a background probe
 * ({@code GET /v0/status}, every {@link FailureDetector#PROBE_INTERVAL}) keeps current.
 *
 * <p>Invariant: no caller thread ever blocks: every result is a future completed on an event loop.
 */
public final class PeerClient implements PeerNetwork {
    private final Duration timeout;
    private final PeerPool pool;
    /** Concurrent: peers are added while the node runs (a node joining). */
    private final Map<String, Peer> peers = new java.util.concurrent.ConcurrentHashMap<>();
    /** Peers no longer in the cluster: not probed (a dead one would be, every probe interval, for ever). */
    private final java.util.Set<String> retired = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final String self;
    private final ScheduledFuture<?> prober;
    private final PeerCallMeter meter;
    /** Null: requests go out without a proof of the cluster secret. */
    private final ClusterSecret secret;

    /**
     * @param sharedLoops the event loops to run on (the HTTP server's; the caller keeps owning them),
     *                    or null for loops of its own; see {@link PeerPool}
     */
    public PeerClient(String self, List<String> nodes, Duration timeout, EventLoopGroup sharedLoops) {
        this(self, nodes, timeout, sharedLoops, PeerCallMeter.NONE, null, null);
    }

    /** @param secret the cluster secret every request proves, or null for none */
    public PeerClient(String self, List<String> nodes, Duration timeout, EventLoopGroup sharedLoops, ClusterSecret secret) {
        this(self, nodes, timeout, sharedLoops, PeerCallMeter.NONE, secret, null);
    }

    /**
     * @param meter  told how every call to a peer ended
     * @param secret the cluster secret every request proves, or null for none
     * @param tls    the TLS context peers are called with (their URLs {@code https://}), or null for plain HTTP
     */
    public PeerClient(String self, List<String> nodes, Duration timeout, EventLoopGroup sharedLoops, PeerCallMeter meter,
                      ClusterSecret secret, SslContext tls) {
        this(self, nodes, timeout, sharedLoops, meter, secret, tls, Duration.ZERO);
    }

    /**
     * @param reuseIdleFor how long a connection may sit unused and still be taken for a call (zero: no
     *                     limit); shorter than the peers' idle timeout, so that a call never goes out
     *                     on a connection the peer is closing ({@link PeerPool})
     */
    public PeerClient(String self, List<String> nodes, Duration timeout, EventLoopGroup sharedLoops, PeerCallMeter meter,
                      ClusterSecret secret, SslContext tls, Duration reuseIdleFor) {
        this.self = self;
        this.meter = meter;
        this.secret = secret;
        this.timeout = timeout;
        this.pool = new PeerPool(timeout, sharedLoops, tls, reuseIdleFor);
        for (String url : nodes) {
            if (!url.equals(self)) peers.put(url, new Peer(url));
        }
        long every = FailureDetector.PROBE_INTERVAL.toMillis();
        this.prober = pool.group().next().scheduleWithFixedDelay(this::probe, every, every, TimeUnit.MILLISECONDS);
    }

    @Override
    public void addPeer(String url) {
        if (url.equals(self)) return;
        Peer p = peers.computeIfAbsent(url, Peer::new);
        if (retired.remove(url)) p.meter = meter.peer(url); // back in the membership: its series again
    }

    /** The peer left the membership: no longer probed, nor in the metrics (a late call counts nowhere). */
    @Override
    public void retirePeer(String url) {
        Peer p = peers.get(url);
        if (p == null || !retired.add(url)) return;
        p.meter = PeerCallMeter.NO_PEER;
        meter.retire(url);
    }

    @Override
    public Replica replica(String peer, HybridLogicalClock clock, MembershipFence fence, boolean batch, boolean batchWrites) {
        return new RemoteReplica(peer, this, clock, fence, batch && pool.lent() ? pool.group() : null, batchWrites);
    }

    @Override
    public TreeTransport trees(String self) {
        return new TreeClient(this, self);
    }

    @Override
    public boolean isUp(String peer) {
        Peer p = peers.get(peer);
        return p != null && p.detector.isUp();
    }

    /** Down and silent: a call to it now fails at once, without being sent ({@link FailureDetector#isSilent}). */
    boolean isSilent(String peer) {
        Peer p = peers.get(peer);
        return p != null && p.detector.isSilent();
    }

    Duration timeout() {
        return timeout;
    }

    @Override
    public ScheduledExecutorService scheduler() {
        return pool.group().next();
    }

    PeerPool pool() {
        return pool;
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
        FailureDetector.Admission admission = p.detector.admit(probe);
        if (admission == FailureDetector.Admission.REFUSE) {
            p.meter.refused();
            return CompletableFuture.failedFuture(new PeerUnavailableException(peer + " is down", null));
        }
        PeerCall call = new PeerCall(p.url, p.detector, p.lanes.lane(), admission == FailureDetector.Admission.TRIAL, timeout,
                p.meter);
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri,
                Unpooled.wrappedBuffer(body));
        if (headers != null) request.headers().set(headers);
        request.headers().set(HttpHeaderNames.HOST, p.hostHeader);
        HttpUtil.setContentLength(request, body.length);
        HttpUtil.setKeepAlive(request, true);
        String proof = sign(request, body);
        if (proof != null) call.expectProof(secret, proof);
        call.start(request);
        return call.result;
    }

    /**
     * Adds the proof of the cluster secret, if there is one, to {@code request}, whose body is
     * {@code body}; returns it (null: no secret), which the answer's proof must bind.
     */
    String sign(HttpRequest request, byte[] body) {
        if (secret == null) return null;
        String proof = secret.sign(request.method().name(), request.uri(), ClusterSecret.Headers.of(request.headers()), body,
                System.currentTimeMillis());
        request.headers().set(ClusterSecret.HEADER, proof);
        return proof;
    }

    /** The cluster secret requests prove and answers must prove; null: none. */
    ClusterSecret secret() {
        return secret;
    }

    /** Opens the internal scan stream of {@code peer} (see {@link PeerScanStream}); reads start at once. */
    @Override
    public ScanSource openScan(String peer, byte[] start, byte[] end, int limit) {
        Peer p = peers.get(peer);
        if (p == null) throw new ScanSource.ScanSourceException("not a peer: " + peer, null);
        if (p.detector.isSilent()) throw new ScanSource.ScanSourceException(peer + " is down (silent)", null);
        return PeerScanStream.open(this, peer, p.host, p.port, p.hostHeader, start, end, limit);
    }

    /** Opens {@code peer}'s join stream to {@code joiner} (see {@link PeerScanStream}); reads start at once. */
    @Override
    public ScanSource openJoinStream(String peer, byte[] start, String joiner, long version, String instead) {
        Peer p = peers.get(peer);
        if (p == null) throw new ScanSource.ScanSourceException("not a peer: " + peer, null);
        if (p.detector.isSilent()) throw new ScanSource.ScanSourceException(peer + " is down (silent)", null);
        return PeerScanStream.open(this, peer, p.host, p.port, p.hostHeader,
                InternalProtocol.joinScanUri(start, joiner, version, instead), true);
    }

    /** Lets every peer's detector probe it if it wants: down, or up and quiet. */
    private void probe() {
        long now = System.nanoTime();
        for (Peer p : peers.values()) {
            if (retired.contains(p.url)) continue;
            p.detector.probe(now, () -> askClock(p));
        }
    }

    /** The probe's call to {@code p}: its answer carries the peer's clock, heard if a clock listens. */
    private CompletableFuture<PeerResponse> askClock(Peer p) {
        HybridLogicalClock c = clock;
        long sentAt = c == null ? 0 : c.physicalNow();
        return send(p.url, HttpMethod.GET, InternalProtocol.PROBE_PATH, null, new byte[0], true).whenComplete((r, e) -> {
            if (r != null && c != null) RemoteReplica.hearClock(c, r, p.url, sentAt);
        });
    }

    @Override
    public CompletableFuture<Void> askClocks() {
        List<CompletableFuture<?>> asks = new java.util.ArrayList<>();
        for (Peer p : peers.values()) {
            if (!retired.contains(p.url)) asks.add(askClock(p).exceptionally(e -> null));
        }
        return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new));
    }

    @Override
    public void hearClocksWith(HybridLogicalClock clock) {
        this.clock = clock;
    }

    /** Hears the clocks probe answers carry ({@link #hearClocksWith}); null: none. */
    private volatile HybridLogicalClock clock;

    @Override
    public void close() {
        prober.cancel(false);
        pool.close();
    }

    /** One peer: its address, its connections, and what the failure detector believes about it. */
    private final class Peer {
        final String url;
        final String host;
        final int port;
        final String hostHeader;
        final PeerPool.Lanes lanes;
        final FailureDetector detector;
        /** Its meters; {@link PeerCallMeter#NO_PEER} while retired. */
        volatile PeerCallMeter.Peer meter;

        Peer(String url) {
            this.meter = PeerClient.this.meter.peer(url);
            this.url = url;
            URI u = URI.create(url);
            this.host = u.getHost();
            this.port = u.getPort() > 0 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
            this.hostHeader = host + ":" + port;
            this.lanes = pool.open(host, port);
            this.detector = new FailureDetector(url, timeout);
        }
    }
}
