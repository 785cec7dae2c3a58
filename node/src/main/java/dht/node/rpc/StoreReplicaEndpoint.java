package dht.node.rpc;

import dht.node.cluster.BorrowedBody;
import dht.node.cluster.ReplicaService;
import dht.node.cluster.TimestampRefusedException;
import dht.node.exec.Completions;
import dht.storage.Entry;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code /internal/v0/entity} and {@code /internal/v0/batch} from this node's
 * {@link ReplicaService} (protocol in docs/wire-format.md).
 *
 * <p>Invariants: {@link #handle} reads everything it needs from the request before it returns, or
 * retains what it still needs (a large batch's buffer, until its writes are done), so the caller
 * may release the request right after; every response carries the clock, so coordinators learn
 * how far this node has gone. A call made on an older membership version than this node's is
 * refused whole, before anything in it is read or applied (409 with this node's version,
 * {@code MembershipFence}); a call without a version (a tool, a node before the fence) is not.
 */
public final class StoreReplicaEndpoint implements ReplicaEndpoint {
    private static final Logger log = LoggerFactory.getLogger(StoreReplicaEndpoint.class);
    private final ReplicaService replica;

    public StoreReplicaEndpoint(ReplicaService replica) {
        this.replica = replica;
    }

    /**
     * Every call counts among the writes on their way to the store from before its version is
     * checked until it is answered, so that a scan for moving data waits out the writes this node
     * let through under an older version ({@code WritesInFlight}).
     */
    @Override
    public CompletableFuture<FullHttpResponse> handle(FullHttpRequest request) {
        dht.node.cluster.WritesInFlight.Cohort entered = replica.enter();
        CompletableFuture<FullHttpResponse> answer;
        try {
            answer = handleCounted(request);
        } catch (RuntimeException | Error e) {
            entered.leave();
            throw e;
        }
        answer.whenComplete((r, failure) -> entered.leave());
        return answer;
    }

    private CompletableFuture<FullHttpResponse> handleCounted(FullHttpRequest request) {
        String uri = request.uri();
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        if (!path.equals(InternalProtocol.BATCH_PATH) && !path.equals(InternalProtocol.ENTITY_PATH)) {
            return done(text(HttpResponseStatus.BAD_REQUEST, "unknown internal path"));
        }
        String callVersion = request.headers().get(InternalProtocol.MEMBERSHIP);
        if (callVersion != null) {
            long v;
            try {
                v = Long.parseLong(callVersion);
            } catch (NumberFormatException e) {
                return done(text(HttpResponseStatus.BAD_REQUEST, "malformed " + InternalProtocol.MEMBERSHIP));
            }
            long mine = replica.refusal(v);
            if (mine >= 0) return done(staleResponse(v, mine));
        }
        if (path.equals(InternalProtocol.BATCH_PATH)) return batch(request);
        byte[] key = InternalProtocol.idOf(uri);
        if (key == null) return done(text(HttpResponseStatus.BAD_REQUEST, "missing or malformed id"));
        HttpMethod method = request.method();
        if (method.equals(HttpMethod.GET)) return replica.read(key, false, this::readResponse);
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
        long expiry;
        try {
            expiry = put ? Long.parseLong(request.headers().get(InternalProtocol.EXPIRY, "0")) : 0;
            if (!Entry.isExpiryWord(expiry)) throw new NumberFormatException();
        } catch (NumberFormatException e) {
            return done(text(HttpResponseStatus.BAD_REQUEST, "malformed " + InternalProtocol.EXPIRY));
        }
        Entry entry = put ? Entry.value(key, ByteBufUtil.getBytes(request.content()), timestamp, expiry)
                : Entry.tombstone(key, timestamp);
        return replica.write(entry, () -> empty(put ? HttpResponseStatus.CREATED : HttpResponseStatus.ACCEPTED))
                .exceptionally(e -> {
                    if (Completions.cause(e) instanceof TimestampRefusedException refused) return refusedResponse(refused);
                    throw e instanceof CompletionException c ? c : new CompletionException(e);
                });
    }

    /** 409: the write's timestamp is too far ahead of this node's clock; nothing was applied. */
    private FullHttpResponse refusedResponse(TimestampRefusedException refused) {
        FullHttpResponse r = text(HttpResponseStatus.CONFLICT, refused.getMessage());
        r.headers().set(InternalProtocol.CLOCK_REFUSED, Long.toString(refused.aheadMillis()));
        r.headers().set(InternalProtocol.CLOCK, Long.toString(replica.clock()));
        return r;
    }

    /** 409: the call was placed by membership version {@code theirs}, older than this node's; nothing was applied. */
    private FullHttpResponse staleResponse(long theirs, long mine) {
        FullHttpResponse r = text(HttpResponseStatus.CONFLICT, "the call was made on membership version " + theirs
                + ", this node is on " + mine + ": nothing applied; ask again on the newer version");
        r.headers().set(InternalProtocol.MEMBERSHIP, Long.toString(mine));
        r.headers().set(InternalProtocol.CLOCK, Long.toString(replica.clock()));
        return r;
    }

    /**
     * {@code POST /internal/v0/batch}: decodes the whole batch before applying any of it (a malformed
     * one gets 400 and changes nothing), hands every operation to the storage threads, and answers
     * once all are done, each with its own result: a failed read fails only itself; writes in a
     * row are one store call with the other writes this loop handed over in the same pass, from
     * any request (StorageDispatcher), so a store failure fails all of them, and a failed write may
     * have been applied all the same.
     */
    private CompletableFuture<FullHttpResponse> batch(FullHttpRequest request) {
        if (!request.method().equals(HttpMethod.POST)) return done(text(HttpResponseStatus.METHOD_NOT_ALLOWED, "POST"));
        long move = InternalProtocol.moveOf(request.uri());
        if (move < 0) return done(text(HttpResponseStatus.BAD_REQUEST, "malformed move: a membership version expected"));
        List<ReplicaBatch.Op> ops;
        // A large batch's values go to the store from the request's buffer, held here until every
        // operation is done (the caller releases the request as soon as this returns).
        ByteBuf held = null;
        try {
            ByteBuf content = request.content();
            if (content.readableBytes() >= BorrowedBody.BORROW_AT) {
                held = BorrowedBody.contiguous(content);
                ops = ReplicaBatch.decodeOps(held.nioBuffer().order(java.nio.ByteOrder.BIG_ENDIAN), true);
            } else {
                ops = ReplicaBatch.decodeOps(ByteBufUtil.getBytes(content));
            }
        } catch (ReplicaBatch.Malformed e) {
            if (held != null) held.release();
            return done(text(HttpResponseStatus.BAD_REQUEST, "malformed batch: " + e.getMessage()));
        } catch (RuntimeException | Error e) {
            if (held != null) held.release();
            throw e;
        }
        List<CompletableFuture<ReplicaBatch.Result>> results = new ArrayList<>(ops.size());
        // values kept for this answer so far: a read past the budget lets its value go at once
        AtomicLong answerValueBytes = new AtomicLong();
        // A batch with a write goes whole through the write hand-off, so that its operations run in
        // the request's order (a read after a write of its key sees it); reads alone keep theirs.
        boolean behindWrites = ops.stream().anyMatch(ReplicaBatch.Op::isWrite);
        for (ReplicaBatch.Op op : ops) {
            CompletableFuture<ReplicaBatch.Result> r = op.isWrite()
                    ? replica.write(op.entry(), () -> ReplicaBatch.Result.WRITTEN_RESULT)
                    : replica.read(op.key(), behindWrites,
                            e -> ReplicaBatch.capped(ReplicaBatch.Result.of(e), answerValueBytes));
            results.add(r.exceptionally(e -> {
                Throwable cause = Completions.cause(e);
                // A full storage queue is overload, answered as such; a refused timestamp is logged by
                // the clock; anything else is the store failing.
                if (!(cause instanceof java.util.concurrent.RejectedExecutionException)
                        && !(cause instanceof TimestampRefusedException)) {
                    log.warn("batched {} failed on this replica: {}", op.isWrite() ? "write" : "read", cause.toString());
                }
                return ReplicaBatch.Result.failed(cause.toString());
            }));
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(results.toArray(CompletableFuture[]::new));
        // taken now: a borrowed body's values are gone once the operations are
        long movedBytes = move > 0 ? movedBytes(ops) : 0;
        if (held != null) {
            // Only once every operation is over: a write still queued for the store reads from it.
            ByteBuf borrowed = held;
            all.whenComplete((x, e) -> borrowed.release());
        }
        return all.thenApply(x -> {
            List<ReplicaBatch.Result> out = new ArrayList<>(results.size());
            for (CompletableFuture<ReplicaBatch.Result> r : results) out.add(r.join());
            // A batch a membership change moves here (a leave's or removal's push, marked move)
            // counts in this node's rebalance figures once every version in it is written.
            if (move > 0 && out.stream().allMatch(res -> res.status() == ReplicaBatch.WRITTEN)) {
                replica.movedIn(move, out.size(), movedBytes);
            }
            byte[] body = ReplicaBatch.encodeResults(out);
            FullHttpResponse r = full(HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
            r.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
            r.headers().set(InternalProtocol.CLOCK, Long.toString(replica.clock()));
            return r;
        });
    }

    /** What the writes of {@code ops} count for in the bytes a move moved. */
    private static long movedBytes(List<ReplicaBatch.Op> ops) {
        long bytes = 0;
        for (ReplicaBatch.Op op : ops) {
            if (op.isWrite()) bytes += ReplicaService.movedBytes(op.entry());
        }
        return bytes;
    }

    private FullHttpResponse readResponse(Entry entry) {
        if (entry == null) return empty(HttpResponseStatus.NOT_FOUND);
        byte[] body = entry.isTombstone() ? new byte[0] : entry.value();
        FullHttpResponse r = full(HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        r.headers().set(InternalProtocol.TIMESTAMP, Long.toString(entry.timestamp()));
        r.headers().set(InternalProtocol.TOMBSTONE, entry.isTombstone() ? "1" : "0");
        if (entry.expiryWord() != 0) r.headers().set(InternalProtocol.EXPIRY, Long.toString(entry.expiryWord()));
        r.headers().set(InternalProtocol.CLOCK, Long.toString(replica.clock()));
        return r;
    }

    private FullHttpResponse empty(HttpResponseStatus status) {
        FullHttpResponse r = full(status, Unpooled.EMPTY_BUFFER);
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        r.headers().set(InternalProtocol.CLOCK, Long.toString(replica.clock()));
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
