package dht.node.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/**
 * Builders for complete responses. Every response built here carries an exact Content-Length;
 * errors carry a short plain-text reason ending in a newline, so that curl output stays readable.
 */
public final class Responses {
    /** Seconds a client is asked to wait after a 503, or after a 504 that a busy replica caused. */
    static final int RETRY_AFTER_SECONDS = 1;
    private static final DefaultHttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory();

    private Responses() {
    }

    public static FullHttpResponse text(HttpResponseStatus status, String reason) {
        byte[] body = (reason + "\n").getBytes(StandardCharsets.UTF_8);
        FullHttpResponse r = of(status, Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        return r;
    }

    public static FullHttpResponse empty(HttpResponseStatus status) {
        return of(status, Unpooled.EMPTY_BUFFER);
    }

    public static FullHttpResponse bytes(HttpResponseStatus status, byte[] body) {
        FullHttpResponse r = of(status, Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        return r;
    }

    public static FullHttpResponse json(String json) {
        FullHttpResponse r = of(HttpResponseStatus.OK, Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8)));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        return r;
    }

    public static FullHttpResponse html(byte[] html) {
        FullHttpResponse r = of(HttpResponseStatus.OK, Unpooled.wrappedBuffer(html));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/html; charset=utf-8");
        return r;
    }

    public static FullHttpResponse badRequest(String reason) {
        return text(HttpResponseStatus.BAD_REQUEST, reason);
    }

    public static FullHttpResponse overloaded(String reason) {
        return retryLater(HttpResponseStatus.SERVICE_UNAVAILABLE, reason);
    }

    /** A failure that a retry after {@link #RETRY_AFTER_SECONDS} may well not meet again: says so in Retry-After. */
    public static FullHttpResponse retryLater(HttpResponseStatus status, String reason) {
        FullHttpResponse r = text(status, reason);
        r.headers().set(HttpHeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
        return r;
    }

    /** The answer to every request a graceful stop refuses: 503, so the client retries elsewhere or later. */
    public static FullHttpResponse shuttingDown() {
        FullHttpResponse r = overloaded("node is shutting down");
        r.headers().set(dht.node.rpc.InternalProtocol.STOPPING, "1"); // for a peer's coordinator: failed, not busy
        return r;
    }

    /** 426: this request needs HTTP/1.1 (RFC 9110, 15.5.22); {@link ConnectionHeader} adds {@code upgrade} to Connection. */
    public static FullHttpResponse upgradeRequired(String reason) {
        FullHttpResponse r = text(HttpResponseStatus.UPGRADE_REQUIRED, reason);
        r.headers().set(HttpHeaderNames.UPGRADE, "HTTP/1.1");
        return r;
    }

    public static FullHttpResponse methodNotAllowed(String allow) {
        FullHttpResponse r = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed; allowed: " + allow);
        r.headers().set(HttpHeaderNames.ALLOW, allow);
        return r;
    }

    private static FullHttpResponse of(HttpResponseStatus status, ByteBuf content) {
        FullHttpResponse r = full(status, content);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        return r;
    }

    /**
     * A bare response around {@code content}. Netty's short constructor gives every response two
     * 16-bucket header tables, one of them for trailers that a non-chunked answer never sends. Our
     * answers carry one to three headers and no trailers: a small table and the shared empty
     * trailers do, and allocate less on every request.
     */
    private static FullHttpResponse full(HttpResponseStatus status, ByteBuf content) {
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content,
                HEADERS.newEmptyHeaders(), EmptyHttpHeaders.INSTANCE);
    }
}
