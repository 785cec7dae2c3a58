package dht.node.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection that has had nothing to do for the idle timeout: no request read whole, no
 * answer pending or being written, no request body arriving. Such a connection holds a socket and a
 * place under the {@link ConnectionLimit}; without this, a client gone without a close (a machine
 * that died, a partition: no FIN ever comes), a keep-alive connection nobody uses again, or a
 * client sending a request head a byte at a time would hold them for as long as the process runs.
 * Bytes alone are not activity, so a head dribbled in never resets the clock; a body in progress
 * has its own, shorter silence limit ({@link RequestAssembler}'s body timeout). The close is
 * silent: an idle keep-alive connection has no request to answer (RFC 9112, 9.6), and a head still
 * arriving is bytes in the decoder, not a request.
 *
 * <p>Checked every quarter of the timeout, with no work per request: a connection is quiet between
 * two checks when it was idle at both and read no request in between (every answer comes from a
 * request, so nothing was written either). It is closed once it has been quiet for the timeout,
 * which is between the timeout and 1.25 times it after it last did anything.
 *
 * <p>Invariant: runs on the channel's event loop; at most one check is scheduled at a time.
 */
final class IdleTimeout extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(IdleTimeout.class);

    private final long timeoutNanos;
    private final LongAdder closed;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> check;
    /** At the last check: whether the connection was idle, and the requests it had read. */
    private boolean wasIdle;
    private long requestsSeen;
    /** When the last check ran (or the handler was added). */
    private long lastCheck;
    /** When the current quiet stretch began (a check's time), or -1 while it is not quiet. */
    private long quietSince = -1;
    private final PressureSweep pressure;
    /** When a {@link PressureSweep} last found this connection quiet with no quiet mark (-1: none), and its requests then. */
    private long pressureMark = -1;
    private long pressureMarkRequests;

    /** @param closed counts the connections this closes, node-wide */
    IdleTimeout(long timeoutNanos, LongAdder closed, PressureSweep pressure) {
        if (timeoutNanos <= 0) throw new IllegalArgumentException("idle timeout must be positive, got " + timeoutNanos + " ns");
        this.timeoutNanos = timeoutNanos;
        this.closed = closed;
        this.pressure = pressure;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        // An accepted connection is active from the start; it counts as idle until it reads a request.
        wasIdle = true;
        lastCheck = System.nanoTime();
        pressure.opened(this);
        schedule();
    }

    /**
     * The node refuses connections: closes this one, on its event loop, if it has been quiet since
     * a sweep at least {@link PressureSweep#QUIET} ago (no request read since, idle then and now).
     * Any thread may call.
     */
    void underPressure() {
        ChannelHandlerContext c = ctx;
        if (c == null) return;
        c.executor().execute(() -> {
            if (!c.channel().isActive()) return;
            long requests = requestsRead();
            long now = System.nanoTime();
            if (!idleNow()) {
                pressureMark = -1;
            } else if (pressureMark < 0 || requests != pressureMarkRequests) {
                pressureMark = now;
                pressureMarkRequests = requests;
            } else if (now - pressureMark >= PressureSweep.QUIET) {
                pressure.closedOne();
                closed.increment();
                log.debug("closing connection {}: nothing to do for {} ms while connections are refused",
                        c.channel().remoteAddress(), TimeUnit.NANOSECONDS.toMillis(now - pressureMark));
                c.close();
            }
        });
    }

    private boolean idleNow() {
        ResponseSequencer sequencer = ctx.pipeline().get(ResponseSequencer.class);
        RequestAssembler assembler = ctx.pipeline().get(RequestAssembler.class);
        return (sequencer == null || sequencer.idle()) && (assembler == null || !assembler.midBody());
    }

    private long requestsRead() {
        ResponseSequencer sequencer = ctx.pipeline().get(ResponseSequencer.class);
        return sequencer == null ? 0 : sequencer.requestsRead();
    }

    private void schedule() {
        check = ctx.executor().schedule(this::check, timeoutNanos / 4, TimeUnit.NANOSECONDS);
    }

    private void check() {
        check = null;
        if (!ctx.channel().isActive()) return;
        boolean idle = idleNow();
        long requests = requestsRead();
        long now = System.nanoTime();
        // A check that runs late (the process was stopped or starved) judges nothing: in the
        // meantime the client may have sent a request that the loop has not read yet.
        boolean late = now - lastCheck > timeoutNanos / 2;
        boolean quiet = idle && wasIdle && requests == requestsSeen && !late;
        wasIdle = idle;
        requestsSeen = requests;
        long previous = lastCheck;
        lastCheck = now;
        if (!quiet) {
            quietSince = -1;
        } else if (quietSince < 0) {
            quietSince = previous;
        } else if (now - quietSince >= timeoutNanos) {
            closed.increment();
            // Debug, not info: a node with many clients that come and go closes many a minute.
            log.debug("closing connection {}: nothing to do for {} s", ctx.channel().remoteAddress(),
                    TimeUnit.NANOSECONDS.toSeconds(now - quietSince));
            ctx.close();
            return;
        }
        schedule();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        pressure.gone(this);
        if (check != null) {
            check.cancel(false);
            check = null;
        }
        super.channelInactive(ctx);
    }
}
