package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.Store;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * Serves {@code /internal/v0/entity} from this node's store (protocol in docs/wire-format.md).
 *
 * <p>Invariants: {@link #handle} reads everything it needs from the request before it returns, so
 * the caller may release the request right after; store work is handed to the storage threads; every
 * incoming write's timestamp is observed by this node's clock before it is applied, and every
 * response carries the clock, so coordinators learn how far this node has gone.
 */
final class StoreReplicaEndpoint implements ReplicaEndpoint {
    private final Store store;
    private final StorageHandOff handOff;
    private final HybridLogicalClock clock;

    StoreReplicaEndpoint(Store store, StorageHandOff handOff, HybridLogicalClock clock) {
        this.store = store;
        this.handOff = handOff;
        this.clock = clock;
    }

    @Override
    public CompletableFuture<FullHttpResponse> handle(FullHttpRequest request) {
        String uri = request.uri();
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        if (!path.equals(InternalProtocol.ENTITY_PATH)) {
            return done(text(HttpResponseStatus.BAD_REQUEST, "unknown internal path"));
        }
        byte[] key = InternalProtocol.idOf(uri);
        if (key == null) return done(text(HttpResponseStatus.BAD_REQUEST, "missing or malformed id"));
        HttpMethod method = request.method();
        CompletableFuture<FullHttpResponse> result = new CompletableFuture<>();
        if (method.equals(HttpMethod.GET)) {
            handOff.submit(result, () -> result.complete(readResponse(store.get(key))));
            return result;
        }
        boolean put = method.equals(HttpMethod.PUT);
        if (!put && !method.equals(HttpMethod.DELETE)) {
            return done(text(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET, PUT or DELETE"));
        }
        long timestamp;
        try {
            timestamp = Long.parseLong(request.headers().get(InternalProtocol.TIMESTAMP, ""));
        } catch (NumberFormatException e) {
            return done(text(HttpResponseStatus.BAD_REQUEST, "missing or malformed " + InternalProtocol.TIMESTAMP));
        }
        Entry entry = put ? Entry.value(key, ByteBufUtil.getBytes(request.content()), timestamp)
                : Entry.tombstone(key, timestamp);
        clock.observe(timestamp);
        handOff.submit(result, () -> {
            LocalReplica.apply(store, entry);
            result.complete(empty(put ? HttpResponseStatus.CREATED : HttpResponseStatus.ACCEPTED));
        });
        return result;
    }

    private FullHttpResponse readResponse(Entry entry) {
        if (entry == null) return empty(HttpResponseStatus.NOT_FOUND);
        byte[] body = entry.isTombstone() ? new byte[0] : entry.value();
        FullHttpResponse r = full(HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        r.headers().set(InternalProtocol.TIMESTAMP, Long.toString(entry.timestamp()));
        r.headers().set(InternalProtocol.TOMBSTONE, entry.isTombstone() ? "1" : "0");
        r.headers().set(InternalProtocol.CLOCK, Long.toString(clock.current()));
        return r;
    }

    private FullHttpResponse empty(HttpResponseStatus status) {
        FullHttpResponse r = full(status, Unpooled.EMPTY_BUFFER);
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        r.headers().set(InternalProtocol.CLOCK, Long.toString(clock.current()));
        return r;
    }

    private static FullHttpResponse text(HttpResponseStatus status, String reason) {
        byte[] body = (reason + "\n").getBytes(StandardCharsets.UTF_8);
        FullHttpResponse r = full(status, Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        return r;
    }

    private static CompletableFuture<FullHttpResponse> done(FullHttpResponse r) {
        return CompletableFuture.completedFuture(r);
    }

    /** As Responses.full on the public side: a small header table and no trailer table per answer. */
    private static FullHttpResponse full(HttpResponseStatus status, ByteBuf content) {
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content,
                DefaultHttpHeadersFactory.headersFactory().newEmptyHeaders(), EmptyHttpHeaders.INSTANCE);
    }
}
