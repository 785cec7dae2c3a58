package dht.node.cluster;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import java.util.concurrent.TimeUnit;

/** Event loops for tests that lend them to a peer client, as a node lends its server's loops. */
public final class TestLoops {
    private TestLoops() {
    }

    /** {@code threads} loops on epoll where the machine has it, else NIO. */
    public static EventLoopGroup start(int threads) {
        IoHandlerFactory io = Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, io);
    }

    /** Closes the client first (it only borrows the loops), then the loops. */
    public static void stop(AutoCloseable client, EventLoopGroup loops) throws Exception {
        client.close();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
