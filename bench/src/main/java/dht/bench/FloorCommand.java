package dht.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dht bench floor}: the HTTP ceiling of Netty on this machine, to measure the node against.
 * A server with the node's transport (native epoll, one event loop per core, TCP_NODELAY) and
 * nothing but Netty's own HTTP codec and aggregator: every PUT is read whole and answered 201,
 * anything else 200 with a short body, and nothing is stored. Answers are written as requests
 * arrive and flushed once per read, the cheapest way Netty's own examples do it. What the node
 * holds against this, side by side, is its cost above Netty's; what this holds against nginx is
 * Netty's.
 */
@Command(name = "floor", mixinStandardHelpOptions = true,
        description = {"An HTTP server of Netty alone (answers 200/201, stores nothing): the ceiling the node is measured against."})
public final class FloorCommand implements Callable<Integer> {
    private static final byte[] HELLO = "hello\n".getBytes(StandardCharsets.US_ASCII);

    @Option(names = "--port", required = true, description = "Port to listen on.")
    int port;

    @Option(names = "--io-threads", defaultValue = "0",
            description = "Event loops; 0 = one per core, as the node (default: ${DEFAULT-VALUE}).")
    int ioThreads;

    @Override
    public Integer call() throws Exception {
        int loops = ioThreads > 0 ? ioThreads : Runtime.getRuntime().availableProcessors();
        EventLoopGroup accept = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        EventLoopGroup io = new MultiThreadIoEventLoopGroup(loops, EpollIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(accept, io)
                    .channel(EpollServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20), new Answer());
                        }
                    }).bind(port).sync().channel();
            System.err.println("floor listening on port " + port + " (epoll, " + loops + " event loops)");
            server.closeFuture().sync();
            return 0;
        } finally {
            accept.shutdownGracefully();
            io.shutdownGracefully();
        }
    }

    /** Answers each whole request at once; the flush waits for the end of the read. */
    private static final class Answer extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean put = request.method().equals(HttpMethod.PUT);
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    put ? HttpResponseStatus.CREATED : HttpResponseStatus.OK,
                    put ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(HELLO));
            response.headers().set(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
            if (!HttpUtil.isKeepAlive(request)) {
                response.headers().set(HttpHeaderNames.CONNECTION, "close");
                ctx.writeAndFlush(response).addListener(f -> ctx.close());
            } else {
                ctx.write(response);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }
}
