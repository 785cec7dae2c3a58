package dht.node.http;

import dht.node.text.LineThrottle;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the connections open at once, clients' and peers' alike. Past the bound a new connection
 * gets {@code 503} with {@code Retry-After: 1} before it has sent anything (a TLS one is closed:
 * no answer can be written before its handshake), and is closed, lingering so that the answer is
 * not lost to a reset. At most an eighth of the bound (at least 16) of those refusals linger at
 * once; past that a refused connection is closed without an answer on the acceptor's thread
 * ({@link #shedder()}), before it is handed to an event loop, so that a flood of connects cannot
 * hold more descriptors than the bound and that eighth (handed on, each held one until its event
 * loop got to it: a tester's 3,000 connects a second ran 4,096 descriptors out).
 *
 * <p>Why: every open connection holds a file descriptor, and heap for a request head in progress
 * (Netty's decoder keeps up to the line and header limits, about 2.5 bytes of heap a byte sent).
 * Unbounded, a few thousand clients that each send most of a head and wait ran a 256 MiB heap
 * out (OutOfMemoryError on the event loops, the node alive and answering nothing), and 20,000
 * idle ones ran the descriptors out (accepts failed silently, and so did a new log file).
 *
 * <p>A connection that has nothing to do for the idle timeout is closed ({@link IdleTimeout}), so that
 * clients gone without a close, or dribbling a head, do not hold their places for good.
 *
 * <p>Invariant: {@code 0 <= open <= max}; a connection counts from its accept until it is closed.
 * {@code lingering} counts the refused ones not yet closed; one is answered only while at most
 * {@code maxLingering} are.
 */
public final class ConnectionLimit {
    private static final Logger log = LoggerFactory.getLogger(ConnectionLimit.class);
    /** Heap a connection may hold at worst is far less; this leaves most of the heap for everything else. */
    private static final long HEAP_PER_CONNECTION = 256 * 1024;
    static final int FLOOR = 512;

    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final int maxLingering;
    private final AtomicInteger lingering = new AtomicInteger();
    /** Accepted and handed to an event loop, not yet counted by {@link #admit}. */
    private final AtomicInteger pending = new AtomicInteger();
    private static final io.netty.util.AttributeKey<AtomicBoolean> PENDING =
            io.netty.util.AttributeKey.valueOf("connectionPending");
    private final AtomicLong refused = new AtomicLong();
    private final LineThrottle refusalLine = new LineThrottle(Duration.ofSeconds(10));
    /** 0: connections are never closed for being idle. */
    private final long idleTimeoutNanos;
    private final LongAdder idleClosed = new LongAdder();
    private final PressureSweep pressure = new PressureSweep();

    /** @param max the most connections open at once; 0 for {@link #defaultMax()}; no idle timeout */
    public ConnectionLimit(int max) {
        this(max, Duration.ZERO);
    }

    /**
     * @param max         the most connections open at once; 0 for {@link #defaultMax()}
     * @param idleTimeout how long a connection may have nothing to do before it is closed; zero: never
     */
    public ConnectionLimit(int max, Duration idleTimeout) {
        if (max < 0) throw new IllegalArgumentException("the connection limit must be 0 (derived) or positive, got " + max);
        if (idleTimeout.isNegative()) throw new IllegalArgumentException("the idle timeout must not be negative, got " + idleTimeout);
        this.max = max == 0 ? defaultMax() : max;
        this.maxLingering = Math.max(16, this.max / 8);
        this.idleTimeoutNanos = idleTimeout.toNanos();
    }

    /**
     * The bound when none is set: a connection per 256 KiB of the heap, at least {@value #FLOOR},
     * and at most half the process's file descriptors (the rest are for tables, logs and peers).
     */
    public static int defaultMax() {
        return defaultMax(Runtime.getRuntime().maxMemory(), maxFileDescriptors());
    }

    /** The same for a heap of {@code maxHeap} bytes and {@code maxFds} descriptors (not known: 0 or less). */
    public static int defaultMax(long maxHeap, long maxFds) {
        long byHeap = Math.max(FLOOR, maxHeap / HEAP_PER_CONNECTION);
        long byFds = maxFds > 0 ? Math.max(64, maxFds / 2) : Integer.MAX_VALUE;
        return (int) Math.min(Integer.MAX_VALUE, Math.min(byHeap, byFds));
    }

    private static long maxFileDescriptors() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            return unix.getMaxFileDescriptorCount();
        }
        return -1;
    }

    public int max() {
        return max;
    }

    public int open() {
        return open.get();
    }

    /** Connections refused for the bound since start. */
    public long refused() {
        return refused.get();
    }

    /** Connections closed for having nothing to do for the idle timeout, since start. */
    public long idleClosed() {
        return idleClosed.sum();
    }

    /** A new handler that closes its connection once idle for the timeout; null when there is none. */
    IdleTimeout idleTimeout() {
        return idleTimeoutNanos == 0 ? null : new IdleTimeout(idleTimeoutNanos, idleClosed, pressure);
    }

    /**
     * Counts {@code ch} until it closes and returns true, or, past the bound, sets it up to be
     * refused ({@code tls}: closed without an answer) and returns false: then it is not counted.
     */
    boolean admit(Channel ch, boolean tls) {
        AtomicBoolean handed = ch.attr(PENDING).get();
        if (handed != null && handed.getAndSet(false)) pending.decrementAndGet();
        if (open.incrementAndGet() <= max) {
            ch.closeFuture().addListener(f -> open.decrementAndGet());
            return true;
        }
        open.decrementAndGet();
        refused.incrementAndGet();
        logRefusal();
        pressure.refused();
        boolean answer = !tls && lingering.incrementAndGet() <= maxLingering;
        if (!tls) ch.closeFuture().addListener(f -> lingering.decrementAndGet());
        ch.pipeline().addLast("too-many-connections", new Refusal(max, answer));
        return false;
    }

    /**
     * The handler to put before Netty's acceptor in the listening socket's pipeline: an accepted
     * connection that would be refused without an answer is closed there, at once.
     */
    public ChannelInboundHandlerAdapter shedder() {
        return new Shedder();
    }

    /**
     * Whether a connection accepted now would be refused without an answer: those open, lingering
     * and on their way to an event loop (counted only once it gets there) fill the bound and the
     * lingering allowance.
     */
    private boolean shedding() {
        return open.get() + lingering.get() + pending.get() >= max + maxLingering;
    }

    @io.netty.channel.ChannelHandler.Sharable
    private final class Shedder extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Channel child) {
                if (shedding()) {
                    refused.incrementAndGet();
                    logRefusal();
                    pressure.refused();
                    child.unsafe().closeForcibly(); // never registered: no event loop, no pipeline
                    return;
                }
                AtomicBoolean handed = new AtomicBoolean(true);
                pending.incrementAndGet();
                child.attr(PENDING).set(handed);
                // closed before it got to admit (its registration failed): not pending any more either
                child.closeFuture().addListener(f -> {
                    if (handed.getAndSet(false)) pending.decrementAndGet();
                });
            }
            ctx.fireChannelRead(msg);
        }
    }

    /** One line at most every 10 s, with the count since the last one. */
    private void logRefusal() {
        long refusedSince = refusalLine.occurred();
        if (refusedSince == 0) return;
        log.warn("refusing connections: {} open, the most allowed (-Ddht.http.maxConnections); {} refused since the "
                + "last such line", max, refusedSince);
    }

    /** Answers a refused connection 503 as soon as it is open, then closes it lingering; or closes it at once. */
    private static final class Refusal extends ChannelInboundHandlerAdapter {
        private final int max;
        private final boolean answer;

        Refusal(int max, boolean answer) {
            this.max = max;
            this.answer = answer;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (!answer) {
                ctx.close();
                return;
            }
            byte[] body = ("too many connections (" + max + " open); retry\n").getBytes(StandardCharsets.UTF_8);
            String head = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    + "Content-Length: " + body.length + "\r\nRetry-After: 1\r\nConnection: close\r\n\r\n";
            LingeringClose.after(ctx.writeAndFlush(Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII), body)));
        }

        /** A refused client that resets is expected: closed, not logged (thousands a second in a flood). */
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
