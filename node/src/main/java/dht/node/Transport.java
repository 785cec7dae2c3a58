package dht.node;

import dht.node.exec.BusyPoll;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event loops' kind: native epoll when the platform has it (it does on Linux x86_64), or
 * io_uring when asked for ({@code -Ddht.io.transport=io_uring}) and the kernel allows it, else NIO,
 * with a log line saying why. The peer client ({@code PeerPool}) runs on the same loops and picks
 * its channel by their kind.
 */
record Transport(String name, IoHandlerFactory ioHandlerFactory, Class<? extends ServerChannel> serverChannel) {
    private static final Logger log = LoggerFactory.getLogger(Transport.class);

    /**
     * @param kind       {@code epoll} or {@code io_uring} ({@link Tuning#transport})
     * @param pollMicros how long an epoll loop polls after activity before it blocks ({@link BusyPoll})
     */
    static Transport choose(String kind, long pollMicros) {
        if (kind.equals("io_uring")) {
            if (IoUring.isAvailable()) {
                return new Transport("io_uring", IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class);
            }
            log.warn("io_uring unavailable, using epoll: {}", String.valueOf(IoUring.unavailabilityCause()));
        }
        if (Epoll.isAvailable()) {
            SelectStrategyFactory poll = BusyPoll.factory(pollMicros);
            IoHandlerFactory handlers = poll == null ? EpollIoHandler.newFactory() : EpollIoHandler.newFactory(0, poll);
            return new Transport("epoll", handlers, EpollServerSocketChannel.class);
        }
        log.warn("native epoll unavailable, falling back to NIO: {}", String.valueOf(Epoll.unavailabilityCause()));
        return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class);
    }
}
