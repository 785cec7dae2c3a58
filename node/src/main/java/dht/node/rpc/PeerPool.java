package dht.node.rpc;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.pool.AbstractChannelPoolHandler;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.channel.pool.FixedChannelPool;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keep-alive HTTP connections to the peers, on Netty (epoll when available). Each peer has one
 * pool per event loop, a {@link Lane}: a request that a server loop coordinates goes out on a
 * connection of that same loop, and its answer comes back there, so the whole call runs on one
 * thread with no hand-off between threads (the hops between separate peer loops and server loops
 * cost more CPU than the requests themselves, see docs/cluster.md). A caller that is not one of the
 * loops is spread over the lanes in turn.
 *
 * <p>A connection unused for longer than {@code reuseIdleFor} is not taken again: the peer closes
 * connections idle for its idle timeout, and a call sent as it closes one would fail.
 *
 * <p>Invariant: a connection carries at most one outstanding request ({@link PeerCall}).
 */
final class PeerPool implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PeerPool.class);

    private static final int MAX_CONNECTIONS_PER_PEER = 32;
    private static final int MAX_PENDING_ACQUIRES = 4096;
    private static final int MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
    /**
     * How long a new connection's TLS handshake may take, apart from any call's deadline: once done
     * the connection serves many calls, so a call that times out must not waste it.
     */
    static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);
    /**
     * TLS handshakes a lane runs at once. A burst would otherwise open every connection of the lane
     * together, and their handshakes (an RSA signature each on the peer) would hold both loops
     * past the calls' deadlines; calls beyond it wait for a connection that is ready.
     */
    static final int MAX_HANDSHAKES_PER_LANE = 2;

    private final EventLoopGroup group;
    /** Whether {@link #close()} shuts {@link #group} down (it does not when the group is shared). */
    private final boolean ownsGroup;
    private final EventLoop[] loops;
    private final Class<? extends SocketChannel> channelClass;
    /** Bounds connecting and waiting for a free connection. */
    private final Duration timeout;
    private final List<Lanes> opened = new ArrayList<>();
    /** Null: plain HTTP. */
    private final SslContext tls;
    /** Whether a pooled connection may be taken for a call. */
    private final ChannelHealthChecker health;

    /**
     * @param sharedLoops the event loops to run on (the HTTP server's; the caller keeps owning them),
     *                    or null for loops of its own (two, epoll where available, else NIO); the
     *                    connections' channel kind follows the loops' (io_uring, epoll or NIO)
     */
    PeerPool(Duration timeout, EventLoopGroup sharedLoops) {
        this(timeout, sharedLoops, null);
    }

    /** @param tls the TLS context every connection starts with, or null for plain HTTP */
    PeerPool(Duration timeout, EventLoopGroup sharedLoops, SslContext tls) {
        this(timeout, sharedLoops, tls, Duration.ZERO);
    }

    /**
     * @param tls          the TLS context every connection starts with, or null for plain HTTP
     * @param reuseIdleFor how long a connection may have sat in the pool and still be taken (zero: no
     *                     limit); past it, it is closed and another taken or opened
     */
    PeerPool(Duration timeout, EventLoopGroup sharedLoops, SslContext tls, Duration reuseIdleFor) {
        this.tls = tls;
        this.health = reuseIdleFor.isZero() ? ChannelHealthChecker.ACTIVE : new FreshConnection(reuseIdleFor);
        this.timeout = timeout;
        this.ownsGroup = sharedLoops == null;
        IoHandlerFactory io = null;
        if (ownsGroup) {
            if (Epoll.isAvailable()) {
                io = EpollIoHandler.newFactory();
            } else {
                log.warn("native epoll unavailable, peer client uses NIO: {}", Epoll.unavailabilityCause().toString());
                io = NioIoHandler.newFactory();
            }
        }
        this.group = ownsGroup ? new MultiThreadIoEventLoopGroup(2, new PeerThreadFactory(), io) : sharedLoops;
        this.channelClass = channelKindOf(group);
        List<EventLoop> all = new ArrayList<>();
        for (var e : group) all.add((EventLoop) e);
        this.loops = all.toArray(EventLoop[]::new);
    }

    /** The socket channel that runs on the loops of GROUP: one rule for loops lent or owned. */
    private static Class<? extends SocketChannel> channelKindOf(EventLoopGroup group) {
        if (group.next() instanceof IoEventLoop loop) {
            if (loop.isIoType(IoUringIoHandler.class)) return IoUringSocketChannel.class;
            if (loop.isIoType(EpollIoHandler.class)) return EpollSocketChannel.class;
        }
        return NioSocketChannel.class;
    }

    EventLoopGroup group() {
        return group;
    }

    /** Whether the pool runs on event loops it was lent (a node's server loops), not loops of its own. */
    boolean lent() {
        return !ownsGroup;
    }

    /** The TLS context of connections to peers, or null for plain HTTP. */
    SslContext tls() {
        return tls;
    }

    Class<? extends SocketChannel> channelClass() {
        return channelClass;
    }

    /** The lanes to one peer, one per event loop; closed with the pool. */
    synchronized Lanes open(String host, int port) {
        int perLane = Math.max(4, MAX_CONNECTIONS_PER_PEER / loops.length);
        Lane[] lanes = new Lane[loops.length];
        for (int i = 0; i < loops.length; i++) lanes[i] = new Lane(loops[i], host, port, perLane);
        Lanes l = new Lanes(lanes);
        opened.add(l);
        return l;
    }

    @Override
    public synchronized void close() {
        for (Lanes l : opened) {
            for (Lane lane : l.lanes) lane.pool.close();
        }
        if (ownsGroup) group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    }

    /** One peer's lanes. */
    static final class Lanes {
        private final Lane[] lanes;
        /** Spreads callers that are not on one of the loops over the lanes. */
        private final AtomicInteger nextLane = new AtomicInteger();

        private Lanes(Lane[] lanes) {
            this.lanes = lanes;
        }

        /** The lane of the calling loop, so the call never changes threads; otherwise the next in turn. */
        Lane lane() {
            for (Lane lane : lanes) {
                if (lane.loop.inEventLoop()) return lane;
            }
            return lanes[Math.floorMod(nextLane.getAndIncrement(), lanes.length)];
        }
    }

    /**
     * The connections to one peer that belong to one event loop. With TLS, calls pass
     * {@link #admit} first, so that at most {@link #MAX_HANDSHAKES_PER_LANE} of them can be opening
     * a connection: the calls admitted exceed the connections ready by at most that.
     * Confined to {@link #loop}.
     */
    final class Lane {
        final EventLoop loop;
        final FixedChannelPool pool;
        /** Open connections whose handshake succeeded. */
        private int ready;
        /** Calls admitted and not yet {@link #done}. */
        private int admitted;
        private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();

        /** Runs {@code call} (on the loop) now or once a connection is ready or free for it. */
        void admit(Runnable call) {
            if (tls == null) {
                call.run();
            } else if (admitted < ready + MAX_HANDSHAKES_PER_LANE) {
                admitted++;
                call.run();
            } else {
                waiting.add(call);
            }
        }

        /** An admitted call no longer holds or waits for a connection. */
        void done() {
            if (tls == null) return;
            admitted--;
            admitWaiting();
        }

        private void admitWaiting() {
            while (!waiting.isEmpty() && admitted < ready + MAX_HANDSHAKES_PER_LANE) {
                admitted++;
                waiting.poll().run();
            }
        }

        private void handshakeEnded(Channel ch, boolean success) {
            if (success) {
                ready++;
                ch.closeFuture().addListener(c -> ready--);
            }
            admitWaiting();
        }

        private Lane(EventLoop loop, String host, int port, int maxConnections) {
            this.loop = loop;
            Bootstrap b = new Bootstrap().group(loop).channel(channelClass).remoteAddress(host, port)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, timeout.toMillis()))
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.SO_KEEPALIVE, true);
            this.pool = new FixedChannelPool(b, new AbstractChannelPoolHandler() {
                @Override
                public void channelCreated(Channel ch) {
                    if (tls != null) {
                        SslHandler handler = tls.newHandler(ch.alloc(), host, port); // one engine per connection
                        handler.setHandshakeTimeoutMillis(HANDSHAKE_TIMEOUT.toMillis());
                        ch.pipeline().addLast(handler);
                        handler.handshakeFuture().addListener(h -> handshakeEnded(ch, h.isSuccess()));
                    }
                    ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(MAX_RESPONSE_BYTES),
                            new PeerCall.AnswerHandler());
                }

                @Override
                public void channelAcquired(Channel ch) {
                    ch.attr(FreshConnection.RELEASED_AT).set(null);
                }

                @Override
                public void channelReleased(Channel ch) {
                    ch.attr(FreshConnection.RELEASED_AT).set(System.nanoTime());
                }
            }, health, FixedChannelPool.AcquireTimeoutAction.FAIL,
                    Math.max(1, timeout.toMillis()), maxConnections, MAX_PENDING_ACQUIRES, true, true);
        }
    }
}
