package dht.node.rpc;

import dht.node.cluster.AntiEntropy;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;

/**
 * Serves anti-entropy's routes ({@code GET /internal/v0/tree} and
 * {@code POST /internal/v0/tree/entries}, docs/wire-format.md) from this node's {@link AntiEntropy},
 * which does the store work on a thread of its own; everything needed from the request is read
 * before {@link #handle} returns.
 */
public final class TreeEndpoint implements ReplicaEndpoint {
    private final AntiEntropy antiEntropy;

    public TreeEndpoint(AntiEntropy antiEntropy) {
        this.antiEntropy = antiEntropy;
    }

    /** Whether {@code uri} is one of this endpoint's. */
    public static boolean serves(String uri) {
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        return path.equals(InternalProtocol.TREE_PATH) || path.equals(InternalProtocol.TREE_PAGE_PATH);
    }

    @Override
    public CompletableFuture<FullHttpResponse> handle(FullHttpRequest request) {
        String uri = request.uri();
        String peer = TreeWire.requester(uri);
        if (peer == null) return done(text(HttpResponseStatus.BAD_REQUEST, "missing or malformed peer"));
        long version = TreeWire.version(uri);
        if (version < 0) return done(text(HttpResponseStatus.BAD_REQUEST, "malformed version"));
        boolean page = uri.startsWith(InternalProtocol.TREE_PAGE_PATH);
        if (!page) {
            if (!request.method().equals(HttpMethod.GET)) return done(text(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET"));
            return antiEntropy.tree(peer, version).handle((tree, e) -> e != null ? failure(e) : binary(tree.encode()));
        }
        if (!request.method().equals(HttpMethod.POST)) return done(text(HttpResponseStatus.METHOD_NOT_ALLOWED, "POST"));
        BitSet leaves;
        try {
            leaves = TreeWire.decodeLeaves(ByteBufUtil.getBytes(request.content()));
        } catch (IllegalArgumentException e) {
            return done(text(HttpResponseStatus.BAD_REQUEST, e.getMessage()));
        }
        byte[] start = InternalProtocol.paramOf(uri, "start");
        if (start == null) start = new byte[0];
        return antiEntropy.page(peer, version, leaves, start).handle((p, e) -> {
            if (e != null) return failure(e);
            FullHttpResponse r = binary(TreeWire.encodePage(p.entries()));
            if (p.next() != null) r.headers().set(InternalProtocol.TREE_NEXT, InternalProtocol.encode(p.next()));
            return r;
        });
    }

    private static FullHttpResponse failure(Throwable e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        if (cause instanceof AntiEntropy.OtherMembershipVersion) return text(HttpResponseStatus.CONFLICT, cause.getMessage());
        return cause instanceof IllegalArgumentException
                ? text(HttpResponseStatus.BAD_REQUEST, cause.getMessage())
                : text(HttpResponseStatus.SERVICE_UNAVAILABLE, "anti-entropy: " + cause);
    }

    private static FullHttpResponse binary(byte[] body) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        return r;
    }

    private static FullHttpResponse text(HttpResponseStatus status, String reason) {
        byte[] body = (reason + "\n").getBytes(StandardCharsets.UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        return r;
    }

    private static CompletableFuture<FullHttpResponse> done(FullHttpResponse r) {
        return CompletableFuture.completedFuture(r);
    }
}
