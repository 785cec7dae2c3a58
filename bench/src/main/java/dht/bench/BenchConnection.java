package dht.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One keep-alive HTTP/1.1 connection with at most {@code depth} requests in flight (HTTP/1.1
 * pipelining when more than one), following its own schedule of intended send times. Every field
 * is touched only by the connection's event loop, except {@link #completedAll}, which the progress
 * monitor reads.
 *
 * <p>Invariants: at most one send is pending (chosen but not written) at a time, and one is pending
 * only while fewer than {@code depth} requests are in flight or a reconnect is under way; answers
 * arrive in the order their requests were written (HTTP/1.1), so the oldest request in flight is
 * the one an answer completes. A request that cannot go out at its intended time because
 * {@code depth} are in flight goes out when an answer makes room and is still measured from its
 * intended time (coordinated omission corrected, as for a late answer).
 *
 * <p>Precise sending: a send more than {@code spinNanos} away is scheduled on the event loop (epoll
 * timers have microsecond resolution) for {@code spinNanos} early, and the rest is spun. A send
 * that is already due goes out at once from the response callback, with no thread hand-off, which
 * is what lets one connection keep up with wrk. With a timer slack, a send's timer is set for the
 * first multiple of the slack at or after its intended time (the same grid for every connection of
 * the loop, so sends due close together share one wake-up) and nothing is spun.
 */
@io.netty.channel.ChannelHandler.Sharable // re-added to each new channel after a reconnect, one at a time
final class BenchConnection extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(BenchConnection.class);

    private final int index;
    private final Target target;
    private final byte[] hostHeader;
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    private final RequestFactory requests;
    private final Tickets tickets;
    private final SplittableRandom random;
    private final long spinNanos;
    private final CountDownLatch finished;
    final ConnectionStats stats = new ConnectionStats();
    /** What the warm-up measured: counted by the same code as the window, then thrown away. */
    private final ConnectionStats warmupStats = new ConnectionStats(1);
    /** [0]: the measured window's stats, [1]: the warm-up's; see {@link #statsFor}. */
    private final ConnectionStats[] byPhase = {stats, warmupStats};
    /** When each phase began, the origin of its timeline; indexed like {@link #byPhase}. */
    private final long[] phaseStart = new long[2];
    final AtomicLong completedAll = new AtomicLong();

    private Channel channel;
    private Schedule schedule;
    private boolean openModel;
    private long startAt;
    private long measureFrom;
    private long endAt;
    private long intended;
    private boolean onTime;
    /** Requests written and not yet answered, oldest first: a ring of their intended and send times. */
    private final int depth;
    private final long[] inFlightIntended;
    private final long[] inFlightSent;
    private int inFlightHead;
    private int inFlight;
    private boolean closeAfter;
    private int status;
    private boolean done;
    /** The schedule (or the run's tickets) has no more sends: finish once the last answer is in. */
    private boolean ended;
    private boolean started;
    /** An intended send was chosen but not written yet (waiting for its time or a reconnect). */
    private boolean pendingSend;
    private final Runnable fire = this::fireFromTimer;
    /** When the pending timer was asked to fire, to learn how late this loop's timers run. */
    private long timerTarget;
    /** The pending send's timer has not fired yet (it will send; a reconnect must not send too). */
    private boolean timerArmed;
    /** Recent timer overshoot (decaying maximum), by which timers are set early and the rest spun. */
    private long timerLateness;
    /** At most this much of {@link #timerLateness} is spun before a send (0: none). */
    private final long maxAdaptiveSpin;
    private static final long MAX_ADAPTIVE_SPIN = 300_000L;
    /** The grid send timers are rounded up to; 0 for precise timers and spinning. */
    private final long timerSlack;

    BenchConnection(int index, Target target, EventLoop loop, Bootstrap bootstrap, RequestFactory requests,
                    Tickets tickets, long seed, long spinNanos, long maxAdaptiveSpin, long timerSlack,
                    int depth, CountDownLatch finished) { // depth >= 1: LoadSpec's invariant
        this.index = index;
        this.depth = depth;
        this.inFlightIntended = new long[depth];
        this.inFlightSent = new long[depth];
        this.target = target;
        this.hostHeader = target.hostHeader().getBytes(StandardCharsets.US_ASCII);
        this.loop = loop;
        this.bootstrap = bootstrap;
        this.requests = requests;
        this.tickets = tickets;
        this.random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
        this.spinNanos = spinNanos;
        this.maxAdaptiveSpin = maxAdaptiveSpin;
        this.timerSlack = timerSlack;
        this.finished = finished;
    }

    EventLoop loop() {
        return loop;
    }

    /** Connects; the future completes when the channel is open (or failed). */
    ChannelFuture connect() {
        ChannelFuture f = bootstrap.clone(loop).handler(new io.netty.channel.ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                if (target.tls()) ch.pipeline().addLast(ClientTls.context().newHandler(ch.alloc(), target.host(), target.port()));
                ch.pipeline().addLast(new ByteCounter(BenchConnection.this));
                ch.pipeline().addLast(new HttpResponseDecoder(4096, 16384, 65536));
                ch.pipeline().addLast(BenchConnection.this);
            }
        }).connect(target.host(), target.port());
        f.addListener((ChannelFuture cf) -> {
            if (cf.isSuccess()) {
                channel = cf.channel();
                if (started && !done) {
                    if (pendingSend) {
                        if (!timerArmed) {
                            fire(); // its timer fired while the connection was down
                        }
                    } else {
                        sendNext();
                    }
                }
            } else {
                stats.connectErrors++;
                // Before the run the generator reports a failed connection itself, in one line.
                if (started && (stats.connectErrors == 1 || stats.connectErrors % 1000 == 0)) {
                    log.warn("connection {} to {} failed ({} so far): {}", index, target.url(),
                            stats.connectErrors, LoadGenerator.whyNotConnected(cf.cause()));
                }
                retryConnect();
            }
        });
        return f;
    }

    private void retryConnect() {
        if (!started) {
            return; // the generator reports the failure before the run starts
        }
        if (done || System.nanoTime() >= endAt) {
            finish();
            return;
        }
        loop.schedule(this::connect, 100, TimeUnit.MILLISECONDS);
    }

    /** Starts following the schedule; called on the event loop. */
    void start(long startNanos, double ratePerSecond, long measureFromNanos, long endNanos) {
        this.openModel = ratePerSecond > 0;
        this.schedule = openModel ? new Schedule(startNanos, ratePerSecond) : null;
        this.startAt = startNanos;
        this.measureFrom = measureFromNanos;
        this.phaseStart[0] = measureFromNanos;
        this.phaseStart[1] = startNanos;
        this.endAt = endNanos;
        this.started = true;
        if (channel != null && channel.isActive()) {
            sendNext();
        }
    }

    private void sendNext() {
        if (done || ended) {
            return;
        }
        long now = System.nanoTime();
        intended = openModel ? schedule.next() : Math.max(now, startAt);
        if (intended >= endAt || !tickets.take()) {
            ended = true;
            if (inFlight == 0) {
                finish();
            }
            return;
        }
        statsFor(intended).due++;
        long wait = intended - now;
        onTime = wait > 0;
        pendingSend = true;
        long early = spinNanos + Math.min(timerLateness, maxAdaptiveSpin);
        long delay = timerSlack > 0 ? slackedDelay(intended, now, timerSlack) : Math.max(0, wait - early);
        if (delay > 0) {
            timerTarget = now + delay;
            timerArmed = true;
            loop.schedule(fire, delay, TimeUnit.NANOSECONDS);
        } else {
            fire();
        }
    }

    /**
     * How long a send waits under a timer slack (0: send now). An overdue send goes out at once, as
     * without slack; one in the future waits for {@link #slackedSendTime}.
     */
    static long slackedDelay(long intendedNanos, long nowNanos, long slack) {
        return intendedNanos > nowNanos ? slackedSendTime(intendedNanos, slack) - nowNanos : 0;
    }

    /** The first multiple of slack at or after the intended time: never early, at most slack - 1 late. */
    static long slackedSendTime(long intendedNanos, long slack) {
        long up = intendedNanos + slack - 1;
        return up - Math.floorMod(up, slack);
    }

    private void fireFromTimer() {
        timerArmed = false;
        long overshoot = System.nanoTime() - timerTarget;
        timerLateness = Math.min(MAX_ADAPTIVE_SPIN, Math.max(overshoot, timerLateness - (timerLateness >> 6)));
        fire();
    }

    private void fire() {
        if (done || !pendingSend) {
            return;
        }
        if (channel == null || !channel.isActive()) {
            return; // reconnecting: the connect listener resumes with sendNext
        }
        long now;
        while ((now = System.nanoTime()) < intended) {
            Thread.onSpinWait();
        }
        pendingSend = false;
        ConnectionStats s = statsFor(intended);
        if (onTime) {
            s.sendLag.recordValue(Math.min(now - intended, s.sendLag.getHighestTrackableValue()));
        }
        int tail = (inFlightHead + inFlight) % depth;
        inFlightIntended[tail] = intended;
        inFlightSent[tail] = now;
        inFlight++;
        ByteBuf req = requests.next(channel.alloc(), hostHeader, random);
        if (s.sent == 0 && openModel) {
            s.windowOpenLag = now - intended;
        }
        s.sent++;
        channel.writeAndFlush(req, channel.voidPromise());
        if (inFlight < depth) {
            sendNext(); // pipelining: the next send does not wait for this answer
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof HttpResponse r) {
                if (r.decoderResult().isFailure()) {
                    log.warn("connection {}: bad response from {}: {}", index, target.url(),
                            r.decoderResult().cause().toString());
                    ctx.close(); // channelInactive charges each request in flight as a read error, in its phase
                    return;
                }
                status = r.status().code();
                closeAfter = r.headers().contains(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
            }
            if (msg instanceof HttpContent c && c.decoderResult().isFailure()) {
                ctx.close(); // as above
                return;
            }
            if (msg instanceof LastHttpContent) {
                complete(System.nanoTime());
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void complete(long now) {
        if (inFlight == 0) {
            return;
        }
        long itsIntended = inFlightIntended[inFlightHead];
        long itsSentAt = inFlightSent[inFlightHead];
        inFlightHead = (inFlightHead + 1) % depth;
        inFlight--;
        completedAll.lazySet(completedAll.get() + 1);
        int phase = phase(itsIntended);
        ConnectionStats s = byPhase[phase];
        long latency = now - (openModel ? itsIntended : itsSentAt);
        s.latency.recordValue(Math.min(latency, s.latency.getHighestTrackableValue()));
        s.timeline.record(itsIntended - phaseStart[phase], latency);
        s.completed++;
        s.lastCompletedAt = now;
        s.bytesRead += unattributedBytes;
        unattributedBytes = 0;
        if (status >= 0 && status < s.statusCounts.length) {
            s.statusCounts[status]++;
        }
        status = 0;
        if (closeAfter) {
            closeAfter = false;
            channel.close(); // channelInactive counts what is still in flight and reconnects
        } else if (ended) {
            if (inFlight == 0) {
                finish();
            }
        } else if (!pendingSend) {
            sendNext();
        }
    }

    /** Charges every request still in flight to the counter chosen for it, oldest first, and forgets them. */
    private void dropInFlight(Consumer<ConnectionStats> charge) {
        for (; inFlight > 0; inFlight--) {
            charge.accept(statsFor(inFlightIntended[inFlightHead]));
            inFlightHead = (inFlightHead + 1) % depth;
        }
        status = 0;
        closeAfter = false;
    }

    /**
     * 0 for a request intended in the measured window, 1 for one intended in the warm-up. Computed,
     * not branched on: with a branch, the JIT compiles the hot paths while only warm-up requests
     * exist, the first measured request hits an uncommon trap, and the compiled send and response
     * paths are thrown away and rebuilt while the window runs, the generator's own compiler
     * competing with the server for the cores.
     */
    private int phase(long intendedNanos) {
        return (int) ((intendedNanos - measureFrom) >>> 63);
    }

    private ConnectionStats statsFor(long intendedNanos) {
        return byPhase[phase(intendedNanos)];
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        channel = null;
        dropInFlight(s -> s.readErrors++);
        if (!done && started) {
            if (ended || System.nanoTime() >= endAt) {
                finish();
            } else {
                connect(); // sendNext resumes the schedule; late sends are charged from their intended time
            }
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        dropInFlight(s -> s.writeErrors++);
        log.debug("connection {} to {}: {}", index, target.url(), cause.toString());
        ctx.close();
    }

    /** Ends the run for this connection: each unanswered request counts as a timeout. */
    void abort() {
        dropInFlight(s -> s.timeouts++);
        finish();
    }

    private void finish() {
        if (!done) {
            done = true;
            countNeverSent();
            if (channel != null) {
                channel.close();
            }
            finished.countDown();
        }
    }

    /**
     * A run that ends before its schedule does (the server did not keep up, and the run's timeout
     * ended the drain; or the connection was down at the end) still intended the sends it never
     * reached: they are counted as due, so that the summary shows them as never sent (otherwise
     * "sent 100%" would be true of any run).
     */
    private void countNeverSent() {
        if (!started || !openModel || ended || endAt == Long.MAX_VALUE || !tickets.unlimited()) {
            return;
        }
        long t;
        while ((t = schedule.next()) < endAt) {
            statsFor(t).due++;
        }
    }

    /** Response bytes read since the last answer completed: they are that answer's, counted in its phase. */
    private long unattributedBytes;

    /**
     * Counts response bytes before decoding (wrk's "Transfer/sec"), each answer's in the phase it was
     * intended in, so that the warm-up's answers never count in the window's bytes.
     */
    private static final class ByteCounter extends ChannelInboundHandlerAdapter {
        private final BenchConnection connection;

        ByteCounter(BenchConnection connection) {
            this.connection = connection;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf b) {
                connection.unattributedBytes += b.readableBytes();
            }
            ctx.fireChannelRead(msg);
        }
    }
}
