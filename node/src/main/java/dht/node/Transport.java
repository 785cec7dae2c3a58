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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Native epoll when the platform has it (it does on Linux x86_64), else NIO with a log line saying why. */
record Transport(String name, IoHandlerFactory ioHandlerFactory, Class<? extends ServerChannel> serverChannel) {
    private static final Logger log = LoggerFactory.getLogger(Transport.class);

    /** @param pollMicros how long an event loop polls after activity before it blocks ({@link BusyPoll}) */
    static Transport choose(long pollMicros) {
        if (Epoll.isAvailable()) {
            SelectStrategyFactory poll = BusyPoll.factory(pollMicros);
            IoHandlerFactory handlers = poll == null ? EpollIoHandler.newFactory() : EpollIoHandler.newFactory(0, poll);
            return new Transport("epoll", handlers, EpollServerSocketChannel.class);
        }
        log.warn("native epoll unavailable, falling back to NIO: {}", String.valueOf(Epoll.unavailabilityCause()));
        return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class);
    }
}
