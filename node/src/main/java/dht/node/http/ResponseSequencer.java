package dht.node.http;

import dht.node.text.LineThrottle;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP/1.1 pipelining: requests on one connection may complete in any order (they run
 * asynchronously), but their answers go out in request order. Each request gets an {@link AnswerSlot}
 * at the tail of a queue; answers are written from the head as soon as the head is ready. A streamed
 * answer (a scan) holds the head until it reports finished. When each request starts is the
 * {@link DispatchWindow}'s decision.
 *
 * <p>Invariants (event loop only): answers leave in the order requests arrived; after an answer that
 * closes the connection nothing more is written, and what the client still sends is dropped
 * ({@link LingeringClose}: the answer must not be lost to a reset); every slot is written or
 * dropped exactly once, so its admission permit always comes back. Reading pauses while {@link #PAUSE_DEPTH}
 * answers are pending, so one client cannot queue unbounded work by pipelining. While the channel
 * is not writable (its outbound buffer past the high-water mark: a client that does not read what
 * it asked for) no answer is handed to Netty and no request is dispatched: the answers wait here
 * ({@link WaitingAnswers}), so a client that pipelines and never reads holds at most
 * {@link DispatchWindow#WINDOW} answers, counted against a node-wide budget, not an outbound buffer
 * that grows with everything it sent.
 */
public final class ResponseSequencer extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ResponseSequencer.class);
    private static final LineThrottle TLS_LINE = new LineThrottle(java.time.Duration.ofSeconds(10));
    static final int PAUSE_DEPTH = 64;
    static final int RESUME_DEPTH = 16;

    private final RequestHandler handler;
    private final Admission admission;
    private final boolean writeRuns;
    private final ArrayDeque<AnswerSlot> queue = new ArrayDeque<>();
    /** Which requests run now; made once the handler is added. */
    private DispatchWindow window;
    private boolean inReady;
    private boolean readyAgain;
    private ChannelHandlerContext ctx;
    private ResponseStream activeStream;
    /** Nothing more is written: the queue is shut down. */
    private boolean closing;
    /** A request asked to close after its answer: later requests are ignored, earlier ones still answered. */
    private boolean inputClosed;
    /** The client ended its side (FIN): the requests it sent are answered, then the connection closes. */
    private boolean clientDone;
    private boolean paused;
    /** Requests read whole (rejected ones too), for {@link IdleTimeout}. */
    private long requestsRead;
    /** The ready answers that wait, and the answer being written in slices; made once the handler is added. */
    private WaitingAnswers waitingAnswers;
    /** A graceful stop's write-out of the ready answers; made once the handler is added. */
    private WriteOutOnStop writeOut;

    public ResponseSequencer(RequestHandler handler, Admission admission) {
        this(handler, admission, false);
    }

    /** @param writeRuns whether pipelined writes may start together ({@link DispatchWindow}) */
    public ResponseSequencer(RequestHandler handler, Admission admission, boolean writeRuns) {
        this.handler = handler;
        this.admission = admission;
        this.writeRuns = writeRuns;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.window = new DispatchWindow(handler, writeRuns, ctx.channel(), () -> closing);
        this.waitingAnswers = new WaitingAnswers(ctx, admission, queue, this::unwrittenBytes, () -> closing);
        this.writeOut = new WriteOutOnStop(ctx, admission, queue, window, this::unwrittenBytes, this::stopReading, this::ready);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing || inputClosed) {
            if (msg instanceof FullHttpRequest ignored) admission.releaseBody(Admission.bodyCost(ignored.content().readableBytes()));
            ReferenceCountUtil.release(msg);
            return;
        }
        requestsRead++;
        if (msg instanceof RejectedRequest rejected) {
            AnswerSlot slot = enqueue(rejected.keepAlive(), false);
            if (!rejected.keepAlive()) inputClosed = true;
            slot.rejection = rejected.response();
            window.admit(slot);
        } else if (msg instanceof FullHttpRequest request) {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            AnswerSlot slot = enqueue(keepAlive, request.protocolVersion().equals(HttpVersion.HTTP_1_0));
            if (!keepAlive) inputClosed = true;
            slot.request = request;
            slot.holdBody(admission, Admission.bodyCost(request.content().readableBytes()));
            window.admit(slot);
        } else {
            ctx.fireChannelRead(msg);
            return;
        }
        if (!paused && queue.size() >= PAUSE_DEPTH) {
            paused = true;
            ctx.channel().config().setAutoRead(false);
        }
    }

    private AnswerSlot enqueue(boolean keepAlive, boolean http10) {
        AnswerSlot slot = new AnswerSlot(this, ctx, keepAlive, http10);
        queue.addLast(slot);
        return slot;
    }

    /** No answer is pending on this connection (an interim 100 Continue may be written now). */
    boolean idle() {
        return queue.isEmpty() && activeStream == null;
    }

    /** How many requests this connection has read whole so far, rejected ones included. */
    long requestsRead() {
        return requestsRead;
    }

    /** A slot became ready: write every answer that can go out now. */
    void ready() {
        if (inReady) {
            readyAgain = true; // a dispatch below completed synchronously: the outer loop picks it up
            return;
        }
        inReady = true;
        try {
            do {
                readyAgain = false;
                if (!writeReady()) return;
                window.startWaiting();
            } while (readyAgain);
        } finally {
            inReady = false;
        }
        if (paused && queue.size() <= RESUME_DEPTH && !closing && !inputClosed) {
            paused = false;
            ctx.channel().config().setAutoRead(true);
            ctx.read();
        }
    }

    /** Writes the ready answers at the head; false if the connection is now closing. */
    private boolean writeReady() {
        boolean wrote = false;
        while (activeStream == null && !queue.isEmpty() && queue.peekFirst().ready() && ctx.channel().isWritable()) {
            AnswerSlot slot = queue.pollFirst();
            try {
                if (slot.response != null) {
                    FullHttpResponse r = slot.response;
                    slot.response = null;
                    boolean close = !slot.keepAlive || slot.closeAfter;
                    ConnectionHeader.set(r, close, slot.http10);
                    if (SlicedBody.worthSlicing(r)) {
                        if (wrote) ctx.flush();
                        wrote = false;
                        long body = r.content().readableBytes();
                        ResponseStream s = new SlicedBody(r, slot::release, () -> waitingAnswers.slicingStalled(slot, body));
                        activeStream = s;
                        waitingAnswers.slicingStarted(slot);
                        s.start(ctx, slot.keepAlive, slot.http10, c -> streamFinished(s, slot, c || close));
                        continue;
                    }
                    window.finished(slot);
                    var future = ctx.write(r);
                    slot.release();
                    wrote = true;
                    if (close) {
                        ctx.flush();
                        closeAfter(future);
                        return false;
                    }
                } else {
                    if (wrote) ctx.flush();
                    wrote = false;
                    ResponseStream s = slot.stream;
                    slot.stream = null;
                    activeStream = s;
                    s.start(ctx, slot.keepAlive, slot.http10, close -> streamFinished(s, slot, close));
                }
            } catch (Throwable e) {
                // Out of heap part way (making the stream, Netty's promise): the slot is in no queue
                // now, so nothing else would give back what it holds; the connection, an answer
                // short, closes. The answers before it go out first, and nothing after it is written,
                // even if the close itself fails.
                try {
                    if (wrote) ctx.flush();
                } catch (Throwable again) {
                    // they are lost with the connection
                }
                shutDownQueue();
                slot.abandon(e);
                return false;
            }
        }
        if (wrote) ctx.flush();
        waitingAnswers.parkTheRest();
        return !closeIfClientDone();
    }

    /**
     * Closes the connection once its last answer is out, if the client has ended its side or a
     * graceful stop is writing out what was ready.
     */
    private boolean closeIfClientDone() {
        if (!(clientDone || writeOut.running()) || closing || !queue.isEmpty() || activeStream != null) return false;
        closeAfter(ctx.writeAndFlush(Unpooled.EMPTY_BUFFER));
        return true;
    }

    /**
     * Ends the connection once {@code last}, its last write, is out (a lingering close), and drops
     * whatever is still pending. A write-out ends when that write has reached the socket, not
     * before: until then the node's stop would drop the bytes still in Netty's buffer.
     */
    private void closeAfter(ChannelFuture last) {
        LingeringClose.after(last);
        if (writeOut.running()) last.addListener(f -> writeOut.end());
        shutDownQueue();
    }

    private void streamFinished(ResponseStream s, AnswerSlot slot, boolean close) {
        if (activeStream != s) return;
        activeStream = null;
        if (waitingAnswers.slicing() == slot) waitingAnswers.slicingEnded();
        // A scan counts as running until its last chunk: a pipelined PUT after it must not change what it reads.
        window.finished(slot);
        if (close || !slot.keepAlive) {
            // Close once everything written so far has reached the socket, not before (a slow
            // client may still have the last batch in the outbound buffer).
            closeAfter(ctx.writeAndFlush(Unpooled.EMPTY_BUFFER));
            return;
        }
        ready();
    }

    /** Nothing more will be written on this connection: drop every pending answer. */
    private void shutDownQueue() {
        closing = true;
        AnswerSlot slot;
        while ((slot = queue.pollFirst()) != null) slot.kill();
        window.clear();
    }

    /** The connection reads nothing more: what the client still sends is ignored. */
    private void stopReading() {
        inputClosed = true;
        ctx.channel().config().setAutoRead(false);
    }

    /** Bytes of this connection's answers not yet taken by the socket. */
    private long unwrittenBytes() {
        long n = activeStream instanceof SlicedBody sliced ? sliced.unwritten() : 0;
        for (AnswerSlot slot : queue) {
            if (slot.response != null) n += slot.response.content().readableBytes();
            else if (slot.rejection != null) n += slot.rejection.content().readableBytes();
        }
        var outbound = ctx.channel().unsafe().outboundBuffer();
        return outbound == null ? n : n + outbound.totalPendingWriteBytes();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        abandon();
        super.channelInactive(ctx);
    }

    /** Nothing more will be written: cancel the stream in progress, drop every pending answer. */
    private void abandon() {
        if (activeStream != null) {
            ResponseStream s = activeStream;
            activeStream = null;
            s.cancel();
        }
        waitingAnswers.slicingEnded();
        shutDownQueue();
        writeOut.end();
    }

    /**
     * A graceful stop, after the requests in flight were answered (or the wait for them gave up):
     * write out the answers ready at the head of the queue while the client reads them
     * ({@link WriteOutOnStop}), else close the connection, unless its last answer is out already and the
     * close under way (the 503 the assembler just gave a request still arriving, for one). Whatever
     * else is still pending is dropped, so the stop stays bounded.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt == RefusedBodyCutOff.INSTANCE) {
            // No request follows: close once the pending answers are out, as if the client had ended its side.
            clientDone = true;
            inputClosed = true;
            closeIfClientDone();
            return;
        }
        if (evt instanceof ChannelInputShutdownEvent) {
            // The decoder has passed on every request the client sent before its FIN (an unfinished
            // one as a 400): nothing more can come, and each still gets its answer.
            clientDone = true;
            inputClosed = true;
            closeIfClientDone();
            super.userEventTriggered(ctx, evt);
            return;
        }
        if (!(evt instanceof GracefulStop stop)) {
            super.userEventTriggered(ctx, evt);
            return;
        }
        if (closing || writeOut.running()) return;
        if (stop == GracefulStop.STOP && writeOut.start(activeStream)) return;
        var flushed = ctx.writeAndFlush(Unpooled.EMPTY_BUFFER);
        if (stop == GracefulStop.STOP_WHILE_CLIENT_SENDS) {
            LingeringClose.after(flushed);
        } else {
            flushed.addListener(ChannelFutureListener.CLOSE);
        }
        abandon();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (activeStream != null) {
            activeStream.writabilityChanged();
        } else if (ctx.channel().isWritable() && !closing) {
            ready(); // the answers held back while the client was not reading
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            log.debug("connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        } else if (isTls(cause)) {
            // Any client may send what is not TLS, as often as it likes: a line each would let one
            // fill the disk (a tester's 2,000 junk handshakes wrote 580 KB), so one per 10 s.
            long failed = TLS_LINE.occurred();
            if (failed > 0) {
                log.warn("TLS handshake or record failed on connection {}: {} ({} such failures since the last such line)",
                        ctx.channel().remoteAddress(), cause.toString(), failed);
            }
        } else {
            log.warn("connection {} closed after an error: {}", ctx.channel().remoteAddress(), cause.toString());
        }
        ctx.close();
    }

    private static boolean isTls(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof javax.net.ssl.SSLException) return true;
        }
        return false;
    }
}
