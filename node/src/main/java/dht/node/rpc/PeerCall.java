package dht.node.rpc;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.pool.ChannelPool;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request to a peer: its deadline (covering pool wait, connect and answer, but not a new
 * connection's TLS handshake, which has its own timeout, {@link PeerPool#HANDSHAKE_TIMEOUT}), its
 * connection once acquired, and the one place it finishes, which tells the peer's
 * {@link FailureDetector}.
 *
 * <p>Invariants: the result completes exactly once, on an event loop, with any HTTP answer or with
 * a {@link PeerUnavailableException}; the connection goes back to the pool only after a complete
 * answer on a keep-alive connection, or unused. A request that fails after it was written closes
 * its connection; one that timed out keeps it out of the pool until its late answer came (read and
 * dropped) or {@link #DRAIN_TIMEOUTS} more timeout passed (then closes it), so a frozen peer's late
 * answer can never be read as the answer to another request, and a peer frozen under load is not
 * sent a new connection for every call that timed out (a black-box tester counted a thousand in
 * two seconds, and the peer refused hundreds when it resumed). A handshake is done once per
 * connection and never cut short by a call's deadline: under load, calls that each restarted it
 * would never get through.
 */
final class PeerCall {
    /** What a call whose time ran out during its connection's handshake still gets for its answer. */
    private static final long MIN_LEFT_AFTER_HANDSHAKE = TimeUnit.MILLISECONDS.toNanos(100);
    /**
     * How many call timeouts a timed-out call's connection waits for its late answer before it is
     * closed. Meanwhile it holds its place in the pool, so a peer that does not answer is not sent
     * new connections at once either; longer would keep a thawed peer's probes out of the pool.
     */
    static final int DRAIN_TIMEOUTS = 1;
    private final String peer;
    private final FailureDetector detector;
    private final PeerPool.Lane lane;
    private final boolean trial;
    private final Duration timeout;
    private final PeerCallMeter.Peer meter;
    private final long startNanos = System.nanoTime();
    final CompletableFuture<PeerResponse> result = new CompletableFuture<>();
    private final AtomicBoolean finished = new AtomicBoolean();
    private volatile Channel channel;
    private ScheduledFuture<?> deadline;
    /** When {@link #deadline} fires, in {@link System#nanoTime()}. */
    private long deadlineNanos;
    /** Whether the lane admitted this call ({@link PeerPool.Lane#admit}): it tells the lane when done. */
    private boolean admitted;
    /** With a cluster secret: what the answer must prove, and the request's proof it binds; else null. */
    private ClusterSecret secret;
    private String requestProof;

    /** @param trial the probe's trial of a silent peer ({@link FailureDetector.Admission#TRIAL}) */
    PeerCall(String peer, FailureDetector detector, PeerPool.Lane lane, boolean trial, Duration timeout,
             PeerCallMeter.Peer meter) {
        this.meter = meter;
        this.peer = peer;
        this.detector = detector;
        this.lane = lane;
        this.trial = trial;
        this.timeout = timeout;
    }

    /** The request carries {@code proof} of {@code secret}: an answer is taken only if it proves the secret too. */
    void expectProof(ClusterSecret secret, String proof) {
        this.secret = secret;
        this.requestProof = proof;
    }

    /** Sends {@code request} (whose reference this call now owns) on the lane's loop. */
    void start(FullHttpRequest request) {
        if (lane.loop.inEventLoop()) {
            startOnLoop(request);
        } else {
            // one hop onto the peer's loop; from there on everything for this call runs there
            try {
                lane.loop.execute(() -> startOnLoop(request));
            } catch (RejectedExecutionException e) {
                request.release();
                fail(new PeerUnavailableException("peer client is closed", e));
            }
        }
    }

    private void startOnLoop(FullHttpRequest request) {
        armDeadline(timeout.toNanos());
        lane.admit(() -> acquire(request));
    }

    private void acquire(FullHttpRequest request) {
        if (finished.get()) { // timed out while waiting to be admitted
            request.release();
            lane.done();
            return;
        }
        admitted = true;
        lane.pool.acquire().addListener((Future<Channel> f) -> {
            if (!f.isSuccess()) {
                request.release();
                fail(new PeerUnavailableException("no connection to " + peer + ": " + f.cause(), f.cause()));
                return;
            }
            Channel ch = f.getNow();
            if (finished.get()) {
                // timed out while waiting for the connection: it is clean, give it back
                request.release();
                lane.pool.release(ch);
                return;
            }
            SslHandler tls = ch.pipeline().get(SslHandler.class);
            if (tls == null || tls.handshakeFuture().isDone()) {
                send(ch, tls, request);
                return;
            }
            // a new connection: the deadline waits while the handshake runs under its own timeout
            long left = deadlineNanos - System.nanoTime();
            deadline.cancel(false);
            tls.handshakeFuture().addListener(h -> {
                if (finished.get()) { // the pool was closed meanwhile
                    request.release();
                    lane.pool.release(ch);
                    return;
                }
                armDeadline(Math.max(left, MIN_LEFT_AFTER_HANDSHAKE));
                send(ch, tls, request);
            });
        });
    }

    /** Fails the call unless it has finished {@code nanos} from now. */
    private void armDeadline(long nanos) {
        deadlineNanos = System.nanoTime() + nanos;
        deadline = lane.loop.schedule(() -> fail(new PeerUnavailableException(
                peer + " did not answer within " + timeout.toMillis() + " ms", null), true),
                nanos, TimeUnit.NANOSECONDS);
    }

    /** Writes the request on a connection whose handshake, if it has one, is over. */
    private void send(Channel ch, SslHandler tls, FullHttpRequest request) {
        if (tls != null && !tls.handshakeFuture().isSuccess()) {
            Throwable cause = tls.handshakeFuture().cause();
            request.release();
            ch.close().addListener(c -> lane.pool.release(ch));
            fail(new PeerUnavailableException("TLS handshake with " + peer + " failed: " + cause, cause));
            return;
        }
        channel = ch;
        ch.pipeline().get(AnswerHandler.class).call = this;
        ch.writeAndFlush(request).addListener(w -> {
            if (!w.isSuccess()) fail(new PeerUnavailableException("write to " + peer + " failed: " + w.cause(), w.cause()));
        });
    }

    /** Called on the channel's event loop with a complete answer. */
    private void answered(FullHttpResponse response) {
        int code = response.status().code();
        byte[] body = ByteBufUtil.getBytes(response.content());
        boolean proven = MemberAnswer.isMembers(secret, requestProof, code, ClusterSecret.Headers.of(response.headers()),
                body, response.headers().get(ClusterSecret.ANSWER_HEADER));
        if (!proven && !ClusterSecret.mayComeUnproven(code)) {
            // Not a member: whatever answers on its address does not hold the secret, or is no node
            // at all. Its answer is no answer, and the connection is not used again.
            if (finished.get()) return;
            String why = "answered " + code + " " + MemberAnswer.lacking(secret);
            detector.rejected(trial, "it " + why);
            fail(new PeerUnavailableException(peer + " " + why, null), false, false);
            return;
        }
        if (!finished.compareAndSet(false, true)) return;
        deadline.cancel(false);
        if (admitted) lane.done();
        HttpHeaders headers = response.headers().copy();
        // A refusal without its proof is taken by its status alone: its clock or version headers prove nothing.
        if (!proven) ClusterSecret.dropCovered(headers);
        PeerResponse r = new PeerResponse(code, headers, body);
        Channel ch = channel;
        ch.pipeline().get(AnswerHandler.class).call = null;
        if (HttpUtil.isKeepAlive(response)) {
            lane.pool.release(ch);
        } else {
            ch.close().addListener(c -> lane.pool.release(ch));
        }
        int status = r.status();
        if (status == 401 || status == 403) {
            detector.rejected(trial, "it answered " + status + " to this node's proof of the cluster secret"
                    + " (another --cluster-secret-file, none, or clocks apart)");
        }
        else detector.succeeded(trial);
        meter.answered(System.nanoTime() - startNanos);
        result.complete(r);
    }

    void fail(Throwable cause) {
        fail(cause, false);
    }

    private void fail(Throwable cause, boolean timedOut) {
        fail(cause, timedOut, true);
    }

    /** @param tellDetector false when the detector has been told already, of an answer that was no member's */
    private void fail(Throwable cause, boolean timedOut, boolean tellDetector) {
        if (!finished.compareAndSet(false, true)) return;
        if (deadline != null) deadline.cancel(false);
        if (admitted) lane.done();
        Channel ch = channel;
        if (ch != null) {
            // The connection may still carry our request: reused only once its answer came, if ever.
            AnswerHandler handler = ch.pipeline().get(AnswerHandler.class);
            if (handler != null) handler.call = null;
            if (timedOut && handler != null && ch.isActive()) {
                handler.drain(ch, lane.pool, timeout.toNanos() * DRAIN_TIMEOUTS);
            } else {
                ch.close().addListener(c -> lane.pool.release(ch));
            }
        }
        if (tellDetector) detector.failed(trial, cause);
        if (timedOut) meter.timedOut(System.nanoTime() - startNanos);
        else meter.failed(System.nanoTime() - startNanos);
        result.completeExceptionally(cause instanceof PeerUnavailableException ? cause
                : new PeerUnavailableException(peer + ": " + cause, cause));
    }

    /** The last handler of a pooled connection: hands the one answer of the outstanding request to its call. */
    static final class AnswerHandler extends SimpleChannelInboundHandler<FullHttpResponse> {
        volatile PeerCall call;
        /** The pool a timed-out call's connection goes back to once its late answer came; null when none is owed. */
        private ChannelPool owedTo;
        private ScheduledFuture<?> drainLimit;

        /** Keeps {@code ch}, whose call timed out, out of the pool until its late answer or {@code nanos}. On its loop. */
        void drain(Channel ch, ChannelPool pool, long nanos) {
            owedTo = pool;
            drainLimit = ch.eventLoop().schedule(() -> {
                if (takeOwed() != null) ch.close().addListener(c -> pool.release(ch));
            }, nanos, TimeUnit.NANOSECONDS);
        }

        /** The pool owed the connection, taken once: null if it is owed none now. */
        private ChannelPool takeOwed() {
            ChannelPool pool = owedTo;
            owedTo = null;
            if (pool != null) drainLimit.cancel(false);
            return pool;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            PeerCall c = call;
            if (c != null) {
                c.answered(response);
                return;
            }
            ChannelPool pool = takeOwed();
            Channel ch = ctx.channel();
            if (pool != null && HttpUtil.isKeepAlive(response)) pool.release(ch); // the late answer, dropped
            else if (pool != null) ch.close().addListener(f -> pool.release(ch));
            else ctx.close(); // an answer nobody asked for: the connection is out of step
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            PeerCall c = call;
            if (c != null) c.fail(new PeerUnavailableException("connection to peer closed before the answer", null));
            ChannelPool pool = takeOwed();
            if (pool != null) pool.release(ctx.channel());
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            PeerCall c = call;
            if (c != null) c.fail(new PeerUnavailableException("peer connection failed: " + cause, cause));
            ctx.close();
        }
    }
}
