package dht.node.http;

import dht.node.rpc.ClusterSecret;
import dht.node.rpc.MemberAnswer;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.util.ReferenceCountUtil;
import java.net.SocketAddress;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.LoggerFactory;

/**
 * One request's place in its connection's answer order. A route completes it exactly once, from any
 * thread, with a full response or a stream; the {@link ResponseSequencer} writes it when all earlier
 * answers are out.
 *
 * <p>{@link #onRelease} registers what to give back (an admission permit) once the work is over: its
 * answer written or dropped, or waiting in the queue ({@link #releaseWork()}); it runs at most once.
 */
public final class AnswerSlot {
    private final ResponseSequencer sequencer;
    private final ChannelHandlerContext ctx;
    final boolean keepAlive;
    final boolean http10;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile Runnable onRelease;
    private Admission bodyBudget;
    private long bodyBytes;
    private volatile Admission answerBudget;
    private final AtomicLong answerBytes = new AtomicLong();
    /** The part of answerBytes marked as waiting (Admission#tryReserveWaiting); event loop only. */
    private long waitingBytes;
    /** The answer is ready and waits (for its turn, or for the client to read): see WaitingAnswers. */
    boolean parked;

    // Written on the event loop only.
    FullHttpResponse response;
    ResponseStream stream;
    boolean closeAfter;
    boolean dead;
    boolean dispatched;
    /** The request changes state (not GET/HEAD/OPTIONS/TRACE): it runs alone on its connection. */
    boolean unsafe;
    /** A write that may start together with the writes pipelined right behind it (DispatchWindow). */
    boolean writeRun;
    /** The request until it is dispatched (it may wait for the connection's window). */
    io.netty.handler.codec.http.FullHttpRequest request;
    /** The answer of a request refused before it was read, sent when its turn to dispatch comes. */
    FullHttpResponse rejection;
    /** Told of the answer once it is ready, if the router metered this request (event loop only). */
    private RequestMeter meter;
    private RequestMeter.Operation operation;
    private long dispatchedNanos;
    /** When the request was read whole ({@link System#nanoTime()}): it may start much later, behind others. */
    final long readNanos = System.nanoTime();
    /** Set for a request that proved the cluster secret: its answer proves it too ({@link ClusterSecret#ANSWER_HEADER}). */
    private volatile ClusterSecret answerSecret;
    /** Set for an internal request to a node without a secret ({@link dht.node.rpc.MemberAnswer}). */
    private volatile boolean marked;
    private volatile String requestProof;

    AnswerSlot(ResponseSequencer sequencer, ChannelHandlerContext ctx, boolean keepAlive, boolean http10) {
        this.sequencer = sequencer;
        this.ctx = ctx;
        this.keepAlive = keepAlive;
        this.http10 = http10;
    }

    public SocketAddress remoteAddress() {
        return ctx.channel().remoteAddress();
    }

    /** Run {@code action} once this request's work is over: its answer written, dropped, or waiting to be written. */
    public void onRelease(Runnable action) {
        this.onRelease = action;
    }

    public void respond(FullHttpResponse r) {
        complete(r, null, false);
    }

    /** Tells {@code meter} of this request's answer when it is ready; {@code nanos} is when it was dispatched. */
    void meter(RequestMeter meter, RequestMeter.Operation operation, long nanos) {
        this.meter = meter;
        this.operation = operation;
        this.dispatchedNanos = nanos;
    }

    /**
     * Answers with what {@code build} makes. If making it fails (under memory pressure, an
     * OutOfMemoryError), answers a 500 and closes instead: a completion callback that throws is
     * swallowed by its future, and the slot would never complete, keeping its permit and every
     * later answer of the connection waiting for good.
     */
    public void respond(java.util.function.Supplier<FullHttpResponse> build) {
        FullHttpResponse r;
        try {
            r = build.get();
        } catch (RuntimeException | Error e) {
            try {
                LoggerFactory.getLogger(AnswerSlot.class).warn("could not build an answer for {}: {}", remoteAddress(), e.toString());
                respondAndClose(Responses.text(io.netty.handler.codec.http.HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error"));
            } catch (Throwable again) { // not even the 500 could be made
                abandon(again);
            }
            return;
        }
        respond(r);
    }

    /** Answer, then close the connection (the request left it in a state we cannot trust). */
    public void respondAndClose(FullHttpResponse r) {
        complete(r, null, true);
    }

    /**
     * Once a graceful stop has begun (admission closed), answers {@link Responses#shuttingDown()}
     * and closes the connection, and returns true; otherwise does nothing and returns false.
     */
    public boolean refuseIfStopping(Admission admission) {
        if (!admission.isClosed()) return false;
        respondAndClose(Responses.shuttingDown());
        return true;
    }

    public void stream(ResponseStream s) {
        complete(null, s, false);
    }

    /** An internal request to a node without a secret: its answer, whatever it is, carries a node's mark. */
    void markAnswer() {
        this.marked = true;
    }

    /** The request proved {@code secret} with {@code proof}: its answer, whatever it is, will prove it too. */
    void proveAnswer(ClusterSecret secret, String proof) {
        this.requestProof = proof;
        this.answerSecret = secret;
    }

    /** The request's body bytes, reserved by the assembler, are given back with this slot. */
    void holdBody(Admission admission, long bytes) {
        this.bodyBudget = admission;
        this.bodyBytes = bytes;
    }

    /**
     * The answer's bytes, reserved while its value was read or while it waits to be written, are
     * given back with this slot. Called once per slot, before the answer is ready.
     */
    void holdAnswer(Admission admission, long bytes) {
        this.answerBudget = admission;
        this.answerBytes.set(bytes);
    }

    /** The answer's bytes counted in the answer budget, since its value was read or since it began to wait (0 if none). */
    long answerBytes() {
        return answerBytes.get();
    }

    /** The answer waits: {@code bytes} of it are marked as waiting, given back with the rest. */
    void holdWaiting(long bytes) {
        this.waitingBytes = bytes;
    }

    /** The bytes marked as waiting (0 unless the answer waits); event loop only. */
    long waitingBytes() {
        return waitingBytes;
    }

    /** Everything: the work's permit and body bytes, and the answer's bytes if they were counted. */
    void release() {
        releaseWork();
        releaseAnswer();
    }

    /** The answer's counted bytes go back (its answer was replaced or is out), once. */
    void releaseAnswer() {
        Admission a = answerBudget;
        if (a == null) return;
        a.releaseAnswer(answerBytes.getAndSet(0));
        a.releaseWaiting(waitingBytes);
        waitingBytes = 0;
    }

    /** The work is over (its answer may still wait): its admission permit and body bytes go back, once. */
    void releaseWork() {
        if (released.compareAndSet(false, true)) {
            if (bodyBudget != null) bodyBudget.releaseBody(bodyBytes);
            Runnable r = onRelease;
            if (r != null) r.run();
        }
    }

    /** Drops this slot, whose answer will never be written, with whatever it holds; event loop only. */
    void kill() {
        dead = true;
        if (request != null) dropRequest();
        if (rejection != null) {
            ReferenceCountUtil.release(rejection);
            rejection = null;
        }
        drop();
    }

    /** Drops the request of a slot never dispatched: it held no permit, only its body bytes to give back. */
    void dropRequest() {
        ReferenceCountUtil.release(request);
        request = null;
        release();
    }

    /** Drops an answer that can no longer be written; event loop or a thread that lost the race with shutdown. */
    void drop() {
        if (response != null) {
            ReferenceCountUtil.release(response);
            response = null;
            release();
        } else if (stream != null) {
            ResponseStream s = stream;
            stream = null;
            s.discard();
        }
    }

    boolean ready() {
        return response != null || stream != null;
    }

    private void complete(FullHttpResponse r, ResponseStream s, boolean close) {
        ClusterSecret secret = answerSecret;
        if (secret != null) {
            try {
                if (r != null) r.headers().set(ClusterSecret.ANSWER_HEADER, secret.answer(requestProof, r.status().code(),
                        ClusterSecret.Headers.of(r.headers()), r.content()));
                if (s != null) s.proveWith(secret.streamAnswer(requestProof), secret.streamSeal(requestProof));
            } catch (RuntimeException | Error e) { // out of heap: as a completion that cannot be handed over
                ReferenceCountUtil.release(r);
                if (s != null) s.discard();
                abandon(e);
                return;
            }
        } else if (marked) {
            if (r != null) r.headers().set(ClusterSecret.ANSWER_HEADER, MemberAnswer.UNSIGNED);
            if (s != null) s.proveWith(MemberAnswer.UNSIGNED, null);
        }
        if (ctx.executor().inEventLoop()) {
            completeOnLoop(r, s, close);
            return;
        }
        try {
            ctx.executor().execute(() -> completeOnLoop(r, s, close));
        } catch (RejectedExecutionException e) {
            // The event loop is gone (node stopped): nobody will write this.
            response = r;
            stream = s;
            drop();
        } catch (OutOfMemoryError e) {
            // The heap is so full that even the hand-off to the event loop failed. Thrown on, the
            // error would be swallowed by the future this runs in and the slot never complete; the
            // event loop never saw this answer, so nothing else would release what it holds.
            ReferenceCountUtil.release(r);
            if (s != null) s.discard();
            abandon(e);
        }
    }

    /**
     * Gives up on this request after an Error (a full heap) left its answer unmade or unwritable:
     * its permit and bytes go back, and its connection, whose later answers cannot go out before
     * this one, is closed if the heap allows. An Error thrown in a future's callback is swallowed by
     * the future, so without this the slot would never complete and hold what it holds for good.
     * Never throws; may run more than once, and before or after the answer it gives up on arrives.
     */
    void abandon(Throwable cause) {
        release();
        // The close first, on its own: logging allocates most, and a log line that fails must not
        // leave the connection open with a hole where this answer was.
        try {
            ctx.channel().close();
        } catch (Throwable again) {
            // still no heap: the client's own timeout ends it
        }
        try {
            LoggerFactory.getLogger(AnswerSlot.class).warn("dropped an answer for {} and closed its connection: {}",
                    remoteAddress(), cause.toString());
        } catch (Throwable again) {
            // nothing more can be said
        }
    }

    private void completeOnLoop(FullHttpResponse r, ResponseStream s, boolean close) {
        RequestMeter m = meter;
        if (m != null) {
            meter = null;
            m.answered(operation, r != null ? r.status().code() : 200, System.nanoTime() - dispatchedNanos);
        }
        response = r;
        stream = s;
        closeAfter = close;
        if (dead) {
            drop();
        } else {
            sequencer.ready();
        }
    }
}
