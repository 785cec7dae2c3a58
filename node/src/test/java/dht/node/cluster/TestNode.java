package dht.node.cluster;

import dht.node.rpc.InternalProtocol;
import dht.node.rpc.PeerClient;
import dht.node.rpc.ReplicaEndpoint;
import dht.node.rpc.ScanRecord;
import dht.node.rpc.StoreReplicaEndpoint;
import dht.testkit.TestPorts;
import dht.storage.CloseableIterator;
import dht.storage.Entry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Test harness: one in-process node with a minimal HTTP server (the real one is the node module's),
 * routing the internal point protocol to the cluster's ReplicaEndpoint and serving the internal scan
 * stream in the documented binary format. {@link #frozen} makes it accept and read but never answer,
 * like a SIGSTOPped process; {@link #busy} makes it refuse point requests for overload; {@link #cutScanAfter} cuts scan streams after that many records.
 */
final class TestNode implements AutoCloseable {
    final int port;
    final String url;
    final MemoryStore store = new MemoryStore();
    final ExecutorService storage = Executors.newFixedThreadPool(2);
    volatile boolean frozen;
    /** Answers the internal point protocol 503, as a node at its in-flight limit does. */
    volatile boolean busy;
    volatile int cutScanAfter = -1;
    private Cluster cluster;
    private ReplicaEndpoint endpoint;
    private EventLoopGroup group;
    private Channel server;

    TestNode(int port) {
        this.port = port;
        this.url = "http://localhost:" + port;
    }

    /**
     * Adds {@code n} nodes on free ports to {@code nodes} (first, so that a test's clean-up closes
     * them even if a start fails) and starts each as a member of that cluster; returns their URLs.
     */
    static List<String> startCluster(List<TestNode> nodes, int n, Duration timeout) throws InterruptedException {
        for (int i = 0; i < n; i++) nodes.add(new TestNode(TestPorts.free()));
        List<String> urls = nodes.stream().map(node -> node.url).toList();
        for (TestNode node : nodes) node.start(urls, timeout);
        return urls;
    }

    void start(List<String> nodes, Duration timeout) throws InterruptedException {
        cluster = Cluster.start(url, nodes, store, storage, timeout, PeerClient::new);
        endpoint = new StoreReplicaEndpoint(cluster.replicaService());
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 24), new Handler());
                    }
                }).bind(port).sync().channel();
    }

    Cluster cluster() {
        return cluster;
    }

    /** Stops serving (the port refuses connections); the cluster object is closed too. */
    void stop() {
        if (server != null) {
            server.close().syncUninterruptibly();
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
            server = null;
        }
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    @Override
    public void close() {
        frozen = false;
        stop();
        storage.shutdownNow();
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            if (frozen) return; // read, never answered
            String path = new QueryStringDecoder(req.uri()).path();
            if (path.equals(InternalProtocol.ENTITY_PATH) && busy) {
                byte[] body = "overloaded\n".getBytes(StandardCharsets.UTF_8);
                FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SERVICE_UNAVAILABLE,
                        Unpooled.wrappedBuffer(body));
                HttpUtil.setContentLength(r, body.length);
                ctx.writeAndFlush(marked(r));
            } else if (path.equals(InternalProtocol.ENTITY_PATH)) {
                boolean keepAlive = HttpUtil.isKeepAlive(req);
                endpoint.handle(req).thenAccept(r -> {
                    if (frozen) return;
                    HttpUtil.setKeepAlive(r, keepAlive);
                    ctx.writeAndFlush(marked(r));
                });
            } else if (path.equals(InternalProtocol.SCAN_PATH)) {
                scan(ctx, new QueryStringDecoder(req.uri()));
            } else {
                byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
                FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                        path.equals("/v0/status") ? HttpResponseStatus.OK : HttpResponseStatus.BAD_REQUEST,
                        Unpooled.wrappedBuffer(body));
                HttpUtil.setContentLength(r, body.length);
                ctx.writeAndFlush(marked(r));
            }
        }

        /** As a node marks its internal answers without a cluster secret ({@link dht.node.rpc.MemberAnswer}). */
        private static <R extends HttpResponse> R marked(R r) {
            r.headers().set(dht.node.rpc.ClusterSecret.ANSWER_HEADER, dht.node.rpc.MemberAnswer.UNSIGNED);
            return r;
        }

        private void scan(ChannelHandlerContext ctx, QueryStringDecoder q) {
            byte[] start = q.parameters().get("start").get(0).getBytes(StandardCharsets.UTF_8);
            List<String> endParam = q.parameters().get("end");
            byte[] end = endParam == null ? null : endParam.get(0).getBytes(StandardCharsets.UTF_8);
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            HttpUtil.setTransferEncodingChunked(head, true);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
            ctx.write(marked(head));
            int n = 0;
            try (CloseableIterator<Entry> it = store.scan(start, end)) {
                while (it.hasNext()) {
                    if (n++ == cutScanAfter) {
                        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                        return;
                    }
                    Entry e = it.next();
                    ByteBuf b = Unpooled.buffer(ScanRecord.size(e));
                    ScanRecord.write(e, b);
                    // split records across chunks to check the reader does not assume alignment
                    int half = b.readableBytes() / 2;
                    ctx.write(new DefaultHttpContent(b.readRetainedSlice(half)));
                    ctx.write(new DefaultHttpContent(b));
                }
            } catch (java.io.IOException e) {
                ctx.close();
                return;
            }
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        }
    }
}
