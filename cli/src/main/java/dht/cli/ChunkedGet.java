package dht.cli;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A GET whose chunked answer is handed over one chunk at a time, chunk boundaries kept: the scan
 * API sends one entry per chunk, and {@code key \n value} cannot be split back into entries once
 * the chunks are joined (a value may hold newlines), which is all the JDK's client offers.
 *
 * <p>Invariants: the outcome is settled exactly once (the whole answer, a non-200 status with its
 * body, no bytes for the idle limit, or a connection that ended before the last chunk); chunks are
 * passed on in order, each whole (never split at the decoder's buffer size).
 */
final class ChunkedGet {
    /** Receives each chunk of a 200 answer, whole; called on the network thread, one at a time. */
    interface ChunkSink {
        void chunk(ByteBuf chunk) throws IOException;
    }

    /**
     * How the request ended: {@code complete} when the whole answer came ({@code errorBody} then
     * holds a non-200 answer's body); else {@code problem} says what happened, in words for the user.
     */
    record Outcome(int status, boolean complete, String problem, String errorBody) {
    }

    /** Larger than any entry a node accepts (an 8 MiB value by default, and its key). */
    private static final int MAX_CHUNK = 256 << 20;

    private ChunkedGet() {
    }

    /**
     * @param idleSeconds the longest wait for the answer's head, and then between bytes of it
     * @throws NodeUnreachableException when no connection could be made
     * @throws NodeTimeoutException     when the answer's head did not come in time
     */
    static Outcome get(URI uri, int idleSeconds, ChunkSink sink) throws IOException, InterruptedException {
        String host = uri.getHost();
        int port = uri.getPort() < 0 ? 80 : uri.getPort();
        String base = "http://" + host + (uri.getPort() < 0 ? "" : ":" + port);
        CompletableFuture<Outcome> done = new CompletableFuture<>();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            HttpDecoderConfig decoding = new HttpDecoderConfig().setMaxChunkSize(MAX_CHUNK).setAllowPartialChunks(false);
                            ch.pipeline().addLast(new HttpClientCodec(decoding, false, false),
                                    new IdleStateHandler(idleSeconds, 0, 0, TimeUnit.SECONDS),
                                    new Receiver(done, sink, base, idleSeconds));
                        }
                    });
            var connect = b.connect(host, port).await();
            if (!connect.isSuccess()) throw new NodeUnreachableException(base, unreachable(connect.cause()));
            String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
            DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, target);
            request.headers().set(HttpHeaderNames.HOST, host + ":" + port).set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            connect.channel().writeAndFlush(request);
            try {
                return done.get();
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            } finally {
                connect.channel().close();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /** Netty's connect failures in the words the other client commands use (NodeUnreachableException.reason). */
    private static IOException unreachable(Throwable cause) {
        if (cause instanceof io.netty.channel.ConnectTimeoutException) return new ConnectException("connect timed out");
        if (cause instanceof ConnectException c && c.getMessage() != null && c.getMessage().startsWith("Connection refused")) {
            return new ConnectException(); // said as "connection refused", without Netty's address suffix
        }
        return cause instanceof IOException io ? io : new ConnectException(String.valueOf(cause));
    }

    private static final class Receiver extends SimpleChannelInboundHandler<HttpObject> {
        private final CompletableFuture<Outcome> done;
        private final ChunkSink sink;
        private final String base;
        private final int idleSeconds;
        private int status;
        private ByteArrayOutputStream errorBody;

        Receiver(CompletableFuture<Outcome> done, ChunkSink sink, String base, int idleSeconds) {
            this.done = done;
            this.sink = sink;
            this.base = base;
            this.idleSeconds = idleSeconds;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) throws IOException {
            if (done.isDone()) return; // settled (a failure): what is still decoded is not printed
            if (msg instanceof HttpResponse r) {
                status = r.status().code();
                if (status != 200) errorBody = new ByteArrayOutputStream();
            }
            if (msg instanceof HttpContent c) {
                ByteBuf content = c.content();
                if (content.isReadable()) {
                    if (errorBody != null) {
                        errorBody.write(ByteBufUtil.getBytes(content));
                    } else {
                        sink.chunk(content);
                    }
                }
                if (msg instanceof LastHttpContent) {
                    done.complete(new Outcome(status, true, null, errorBody == null ? null : errorBody.toString(java.nio.charset.StandardCharsets.UTF_8)));
                    ctx.close();
                }
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof IdleStateEvent) {
                if (status == 0) {
                    done.completeExceptionally(new NodeTimeoutException(base, idleSeconds, false, null));
                } else {
                    done.complete(new Outcome(status, false, "no data from node " + base + " for " + idleSeconds + " s", null));
                }
                ctx.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.complete(new Outcome(status, false, "the answer was cut short (node " + base + " closed the connection)", null));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.complete(new Outcome(status, false, "the answer could not be read (" + cause.getMessage() + ")", null));
            ctx.close();
        }
    }
}
