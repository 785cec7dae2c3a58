package dht.node.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins a request's head and body pieces into one {@code FullHttpRequest}, enforcing the body limit,
 * and turns decoder failures into {@link RejectedRequest}s so their answers keep request order.
 * (Netty's HttpObjectAggregator writes its 413 straight to the socket, which would overtake
 * answers still pending on a pipelined connection.)
 *
 * <p>Answers: request line too long: 414; header block too large: 431; other malformed input: 400;
 * all three close the connection when the decoder has lost the framing (a public request line over
 * the limit but within {@link #decoderLineLimit} is decoded whole, and its connection stays usable). A body over the limit:
 * 413; the connection stays usable (the rest of the body is read and dropped) unless the client was
 * waiting for {@code 100 Continue} or asked to close, or more than {@link #MAX_DISCARD_BYTES} would
 * have to be dropped: a declared length past it closes the connection after the answer, and a
 * chunked body is cut off once that much of it was dropped ({@link RefusedBodyCutOff}), so a client
 * cannot keep the node reading a body it refused. At most {@link #bodyLimit} bytes are ever held
 * for one request (the client limit, or for a peer's {@code /internal/} request at least
 * {@link #MIN_INTERNAL_BODY_BYTES}), and body bytes held node-wide stay within the {@link Admission} budget: past
 * it the request is answered 503 (its body read and dropped), like any other overload. An
 * {@code Expect} other than {@code 100-continue}: 417, and the connection closes. A
 * {@code Transfer-Encoding} other than {@code chunked} alone: 501, and the connection closes.
 *
 * <p>A body that stops arriving: once a request's body has begun, its bytes count against the
 * node-wide budget until it ends, so a few clients that stall halfway through large bodies could
 * hold the whole budget and have every other body refused with 503. A body that gets no byte for
 * {@code bodyTimeout} is answered 408 and its connection closed, which gives its bytes back. The
 * same silence while dropping the rest of a refused body closes the connection (its answer went out
 * long before). An idle connection, or one whose head is still arriving (held by the decoder, at
 * most the header limit, outside the budget), is {@link IdleTimeout}'s to close.
 */
public final class RequestAssembler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(RequestAssembler.class);

    private final int maxUriBytes;
    private final int maxBodyBytes;
    private final Admission admission;
    private HttpRequest head;
    /** Body bytes of the request being read, reserved in the node-wide budget. */
    private long reserved;
    private CompositeByteBuf body;
    private boolean discarding;
    /** Bytes of the refused body dropped so far. */
    private long discarded;
    private boolean broken;
    private final long bodyTimeoutNanos;
    /** When the body in progress last received bytes (set after each read that leaves one unfinished). */
    private long lastBodyBytes;
    /** The pending check for a stalled body; null when none is scheduled. */
    private ScheduledFuture<?> stallCheck;

    /**
     * The least an internal request may carry whatever {@code --max-body} is: peers send replica
     * calls in batches of up to 256 KiB (PeerBatcher), and a batch of many small writes refused
     * with 413 by a node with a small client limit would fail every write in it there.
     */
    static final int MIN_INTERNAL_BODY_BYTES = 512 * 1024;

    /**
     * Room an internal body has past the larger of {@code --max-body} and {@link
     * #MIN_INTERNAL_BODY_BYTES}, besides the longest key (no longer than a request line): a batch
     * that holds one version of the largest value a client may write carries that key and a few
     * dozen bytes of framing with it (a leave's push, anti-entropy, a hand-over). Without it, a
     * value written at the limit could never move: each leave failed on it with 413.
     */
    static final int INTERNAL_FRAMING_BYTES = 4096;

    /**
     * The most of a refused body the node reads and drops to keep its connection; past it the
     * connection closes. As much as a lingering close drops ({@link LingeringClose#MAX_DISCARDED_BYTES}).
     */
    static final long MAX_DISCARD_BYTES = LingeringClose.MAX_DISCARDED_BYTES;

    /**
     * How far past {@code --max-uri} an operator's repair ({@code GET ...&repair=all}) may go: its
     * {@code &from=F&repair=all} is about 20 bytes, so without it a key stored by a PUT within that
     * of the limit could never be repaired by {@code bin/dht repair} (414).
     */
    static final int REPAIR_LINE_SLACK = 64;

    public RequestAssembler(int maxUriBytes, int maxBodyBytes, Admission admission, Duration bodyTimeout) {
        if (!bodyTimeout.isPositive()) throw new IllegalArgumentException("body timeout must be positive, got " + bodyTimeout);
        this.maxUriBytes = maxUriBytes;
        this.maxBodyBytes = maxBodyBytes;
        this.admission = admission;
        this.bodyTimeoutNanos = bodyTimeout.toNanos();
    }

    /**
     * The decoder's limit on a request line: room for the internal form of any public request. A
     * coordinator percent-encodes every key byte outside the unreserved set (three bytes each), so
     * a key that fits a public request line can take three times as much in the line it sends to
     * a replica; the public limit is checked here instead, on public paths only.
     */
    public static int decoderLineLimit(int maxUriBytes) {
        return 3 * maxUriBytes + 256;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (broken) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request) {
            onHead(ctx, request);
        }
        if (msg instanceof HttpContent content) {
            onContent(ctx, content);
        } else if (!(msg instanceof HttpRequest)) {
            ctx.fireChannelRead(msg);
        }
    }

    private void onHead(ChannelHandlerContext ctx, HttpRequest request) {
        discardBody();
        discarding = false;
        discarded = 0;
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            reject(ctx, cause instanceof IllegalArgumentException && digitsTooLong(request) ? tooLarge(bodyLimit(request))
                    : decodeFailure(ctx, cause), false);
            return;
        }
        if (request.protocolVersion().majorVersion() != 1) {
            reject(ctx, Responses.badRequest("unsupported HTTP version"), false);
            return;
        }
        java.util.List<String> codings = request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING);
        if (!codings.isEmpty() && !(codings.size() == 1 && HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(codings.getFirst().trim()))) {
            // The decoder reads "gzip, chunked" as chunked and would pass the body on still
            // gzipped, to be stored as the value; RFC 9112 answers a coding the server does not
            // implement with 501. The body's framing is then unknown, so the connection closes.
            reject(ctx, Responses.text(HttpResponseStatus.NOT_IMPLEMENTED,
                    "unsupported transfer coding: " + String.join(", ", codings)), false);
            return;
        }
        long length;
        try {
            length = HttpUtil.getContentLength(request, -1L);
        } catch (NumberFormatException e) {
            reject(ctx, Responses.badRequest("invalid Content-Length"), false);
            return;
        }
        String expect = request.headers().get(HttpHeaderNames.EXPECT);
        if (expect != null && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect.trim())) {
            // The client waits for an answer to an expectation we cannot meet, and may or may not send
            // its body after the 417: the framing is no longer certain, so the connection closes.
            reject(ctx, Responses.text(HttpResponseStatus.EXPECTATION_FAILED,
                    "unsupported expectation: " + expect), false);
            return;
        }
        boolean expectsContinue = HttpUtil.is100ContinueExpected(request);
        int lineLength = request.method().name().length() + request.uri().length()
                + request.protocolVersion().text().length() + 2;
        // Whether a request refused here (414, 413) keeps its connection: its body is read and
        // dropped, unless the client waits for 100 Continue, asked to close, or declared more than
        // is worth dropping; the answer says close when it will.
        boolean keepAlive = HttpUtil.isKeepAlive(request) && !expectsContinue && length <= MAX_DISCARD_BYTES;
        if (lineLength > maxUriBytes && !internal(request)
                && !(lineLength <= maxUriBytes + REPAIR_LINE_SLACK && repair(request))) {
            // Decoded whole, so the framing holds: the connection stays usable once the body is dropped
            // (after an unsupported Expect it was already refused and closed, above).
            reject(ctx, Responses.text(HttpResponseStatus.REQUEST_URI_TOO_LONG, "request line too long"), keepAlive);
            discarding = keepAlive;
            return;
        }
        int limit = bodyLimit(request);
        if (length > limit) {
            reject(ctx, tooLarge(limit), keepAlive);
            discarding = keepAlive;
            return;
        }
        if (expectsContinue) {
            request.headers().remove(HttpHeaderNames.EXPECT);
            // An interim answer, written directly: only when no earlier answer is pending, or it could
            // land inside one. Otherwise the client sends the body after its own short wait (RFC 9110).
            ResponseSequencer sequencer = ctx.pipeline().get(ResponseSequencer.class);
            if (sequencer == null || sequencer.idle()) {
                ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
                        Unpooled.EMPTY_BUFFER));
            }
        }
        head = request;
    }

    private void onContent(ChannelHandlerContext ctx, HttpContent content) {
        try {
            if (discarding) {
                discarded += content.content().readableBytes();
                if (content instanceof LastHttpContent) {
                    discarding = false;
                } else if (discarded > MAX_DISCARD_BYTES) {
                    log.info("closing connection {}: the refused body goes on past {} bytes", ctx.channel().remoteAddress(),
                            MAX_DISCARD_BYTES);
                    discarding = false;
                    broken = true;
                    ctx.fireUserEventTriggered(RefusedBodyCutOff.INSTANCE);
                }
                return;
            }
            if (head == null || broken) return;
            if (content.decoderResult().isFailure()) {
                discardBody();
                Throwable cause = content.decoderResult().cause();
                // A line too long here is a chunk's size line (or a trailer's), not the request line.
                reject(ctx, cause instanceof TooLongHttpLineException
                        ? Responses.badRequest("malformed chunked body: a chunk size line too long")
                        : decodeFailure(ctx, cause), false);
                return;
            }
            ByteBuf piece = content.content();
            ByteBuf whole = null;
            if (piece.isReadable()) {
                int held = body == null ? 0 : body.readableBytes();
                int limit = bodyLimit(head);
                if ((long) held + piece.readableBytes() > limit) {
                    boolean keepAlive = HttpUtil.isKeepAlive(head);
                    discardBody();
                    reject(ctx, tooLarge(limit), keepAlive);
                    discarding = keepAlive && !(content instanceof LastHttpContent);
                    return;
                }
                if (!admission.tryReserveBody(piece.readableBytes())) {
                    boolean keepAlive = HttpUtil.isKeepAlive(head);
                    discardBody();
                    reject(ctx, Responses.overloaded("overloaded: too many request bodies held"), keepAlive);
                    discarding = keepAlive && !(content instanceof LastHttpContent);
                    return;
                }
                reserved += piece.readableBytes();
                if (body == null && content instanceof LastHttpContent) {
                    // The whole body came in one piece (the usual case for small values): hand that
                    // buffer on as it is, no composite around it (one object graph less per PUT).
                    whole = piece.retain();
                } else {
                    if (body == null) body = ctx.alloc().compositeBuffer(64);
                    body.addComponent(true, piece.retain());
                }
            }
            if (content instanceof LastHttpContent last) {
                // Counted as the array a copy of it takes on the heap (a 1 MiB body is 2 MiB of G1
                // regions on a 128 MB heap), given back with the answer. A body under 128 KiB is
                // copied; a larger one is copied only for peers in a cluster, and written from this
                // buffer on a single node: counted as a copy all the same, to keep one bound.
                long extra = Admission.bodyCost(reserved) - reserved;
                if (extra > 0 && !admission.tryReserveBody(extra)) {
                    boolean keepAlive = HttpUtil.isKeepAlive(head);
                    if (whole != null) whole.release();
                    discardBody();
                    reject(ctx, Responses.overloaded("overloaded: too many request bodies held"), keepAlive);
                    return;
                }
                HttpRequest h = head;
                ByteBuf b = whole != null ? whole : body == null ? Unpooled.EMPTY_BUFFER : body;
                head = null;
                body = null;
                reserved = 0; // handed over with the request: the sequencer gives it back with the answer
                ctx.fireChannelRead(new DefaultFullHttpRequest(h.protocolVersion(), h.method(), h.uri(), b,
                        h.headers(), last.trailingHeaders()));
            }
        } finally {
            content.release();
        }
    }

    /** A peer's request ({@code /internal/...}): not held to the client limits on line and body. */
    private static boolean internal(HttpRequest request) {
        return request.uri().startsWith("/internal/");
    }

    /** Whether {@code request} asks for an operator's repair (its route checks the parameter itself). */
    private static boolean repair(HttpRequest request) {
        String uri = request.uri();
        return request.method() == HttpMethod.GET && uri.startsWith("/v0/entity?")
                && (uri.contains("&repair=all") || uri.contains("?repair=all"));
    }

    /** The most body bytes {@code request} may carry. */
    private int bodyLimit(HttpRequest request) {
        if (!internal(request)) return maxBodyBytes;
        long most = (long) Math.max(maxBodyBytes, MIN_INTERNAL_BODY_BYTES) + maxUriBytes + INTERNAL_FRAMING_BYTES;
        return (int) Math.min(Integer.MAX_VALUE - 8, most);
    }

    /**
     * The decoder gave up on a Content-Length of digits alone, too many for a long: a length beyond
     * every limit, so the answer is the 413 a smaller one past the limit gets, not a 400.
     */
    private static boolean digitsTooLong(HttpRequest request) {
        java.util.List<String> lengths = request.headers().getAll(HttpHeaderNames.CONTENT_LENGTH);
        if (lengths.size() != 1) return false;
        String v = lengths.getFirst().trim();
        return v.length() > 18 && v.chars().allMatch(ch -> ch >= '0' && ch <= '9');
    }

    private static io.netty.handler.codec.http.FullHttpResponse tooLarge(int limit) {
        return Responses.text(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "request body larger than " + limit + " bytes");
    }

    private io.netty.handler.codec.http.FullHttpResponse decodeFailure(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("malformed request from {}: {}", ctx.channel().remoteAddress(), cause.toString());
        if (cause instanceof TooLongHttpLineException) {
            return Responses.text(HttpResponseStatus.REQUEST_URI_TOO_LONG, "request line too long");
        }
        if (cause instanceof TooLongHttpHeaderException) {
            return Responses.text(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request headers too large");
        }
        if (cause instanceof TooLongFrameException) {
            return Responses.text(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request too large");
        }
        return Responses.badRequest("malformed HTTP request");
    }

    private void reject(ChannelHandlerContext ctx, io.netty.handler.codec.http.FullHttpResponse response,
                        boolean keepAlive) {
        head = null;
        if (!keepAlive) broken = true;
        ctx.fireChannelRead(new RejectedRequest(response, keepAlive));
    }

    private void discardBody() {
        if (body != null) {
            body.release();
            body = null;
        }
        admission.releaseBody(reserved);
        reserved = 0;
        head = null;
    }

    /** True while a body has begun and not ended: its own (held against the budget) or a refused one being dropped. */
    boolean midBody() {
        return !broken && (head != null || discarding);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // Once per read, not per piece: a body that arrives with its head in one read (the usual
        // case) never gets here unfinished, and costs nothing.
        if (midBody()) {
            lastBodyBytes = System.nanoTime();
            if (stallCheck == null) scheduleStallCheck(ctx, bodyTimeoutNanos);
        }
        ctx.fireChannelReadComplete();
    }

    private void scheduleStallCheck(ChannelHandlerContext ctx, long delayNanos) {
        stallCheck = ctx.executor().schedule(() -> checkStall(ctx), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void checkStall(ChannelHandlerContext ctx) {
        stallCheck = null;
        if (!midBody() || !ctx.channel().isActive()) return;
        if (!ctx.channel().config().isAutoRead()) {
            // The node paused reading (answers pending behind a slow one): the silence is ours, not
            // the client's. Counted from when reading resumes.
            lastBodyBytes = System.nanoTime();
        }
        long silent = System.nanoTime() - lastBodyBytes;
        if (silent < bodyTimeoutNanos) {
            scheduleStallCheck(ctx, bodyTimeoutNanos - silent);
            return;
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(silent);
        if (discarding) {
            log.info("closing connection {}: the rest of a refused body stalled for {} s", ctx.channel().remoteAddress(), seconds);
            discarding = false;
            broken = true;
            ctx.close();
            return;
        }
        log.info("closing connection {}: request body stalled for {} s after {} bytes", ctx.channel().remoteAddress(),
                seconds, reserved);
        discardBody();
        reject(ctx, Responses.text(HttpResponseStatus.REQUEST_TIMEOUT, "request body stalled for " + seconds + " s"), false);
    }

    /**
     * A graceful stop reached this connection ({@link GracefulStop}). A request whose head was read
     * but whose body is still arriving was not in flight (not read whole), so it is treated like one
     * that comes after the stop: answered 503 and dropped, never applied. Nothing else is answered:
     * an idle connection has no request, and a head still arriving is bytes in the decoder that are
     * not a request yet; the sequencer closes those without a word.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof ChannelInputShutdownEvent && head != null && !broken) {
            // The client ended its side halfway through a body (the decoder says nothing of it):
            // the request can never complete, so it is refused, not left unanswered.
            discardBody();
            reject(ctx, Responses.badRequest("request body cut short by the end of the stream"), false);
        }
        if (evt != GracefulStop.STOP || broken) {
            super.userEventTriggered(ctx, evt);
            return;
        }
        if (head != null) {
            log.info("stopping: answering 503 to a request from {} whose body was still arriving ({} bytes of it read)",
                    ctx.channel().remoteAddress(), reserved);
            discardBody();
            reject(ctx, Responses.shuttingDown(), false);
            evt = GracefulStop.STOP_WHILE_CLIENT_SENDS;
        } else if (discarding) {
            // The answer went out already; the client is still sending the body it refused.
            discarding = false;
            broken = true;
            evt = GracefulStop.STOP_WHILE_CLIENT_SENDS;
        } else {
            broken = true;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (stallCheck != null) {
            stallCheck.cancel(false);
            stallCheck = null;
        }
        discardBody();
        super.channelInactive(ctx);
    }
}
