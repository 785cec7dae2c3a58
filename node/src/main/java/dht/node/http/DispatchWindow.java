package dht.node.http;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of a connection's requests run now, and handing them to the {@link RequestHandler}. At most
 * {@link #WINDOW} run at once, so a client pipelining hundreds of requests in one write is served in
 * turn rather than taking every admission permit of the node; later ones wait here in order.
 *
 * <p>Safe requests (GET) run in parallel, up to the window; a request that changes something runs
 * alone, after every earlier answer is out and before any later request starts (RFC 9112 allows
 * parallel processing of pipelined requests only when all are safe), so a pipelined GET after a PUT
 * of the same key sees it, and a scan before a PUT does not.
 *
 * <p>The one exception is a write run: where {@code writeRuns} holds (a node that is its own whole
 * cluster, whose store calls of one event-loop pass reach the store as one ordered group commit), a
 * write whose route lets it share a group commit ({@link Route#mayShareGroupCommit}) starts together
 * with the writes right behind it that may too, up to the window, in order and in the same pass.
 * Each still takes effect after the one before it, and no other connection can see a later one
 * without the earlier ones.
 *
 * <p>Nothing starts while the channel is not writable: a client that does not read what it asked
 * for gets no more work done. Event loop only.
 */
final class DispatchWindow {
    private static final Logger log = LoggerFactory.getLogger(DispatchWindow.class);
    /** Requests of one connection being worked on at once; later ones wait their turn. */
    static final int WINDOW = 8;

    private final RequestHandler handler;
    private final boolean writeRuns;
    private final Channel channel;
    /** True once the connection writes nothing more: no request starts. */
    private final BooleanSupplier closing;
    private final ArrayDeque<AnswerSlot> waiting = new ArrayDeque<>();
    private int active;
    /** Dispatched requests that change something and are not finished: no later request starts meanwhile. */
    private int unsafeActive;

    /**
     * @param writeRuns whether pipelined writes may start together: only where the store calls of one
     *                  event-loop pass reach the store as one ordered batch, and the node is the only
     *                  replica of every key
     */
    DispatchWindow(RequestHandler handler, boolean writeRuns, Channel channel, BooleanSupplier closing) {
        this.handler = handler;
        this.writeRuns = writeRuns;
        this.channel = channel;
        this.closing = closing;
    }

    /**
     * Starts the slot's request (or refusal) now if the window has room, else once earlier ones are
     * over ({@link #startWaiting}).
     */
    void admit(AnswerSlot slot) {
        FullHttpRequest request = slot.request;
        if (request != null) {
            slot.unsafe = !isSafe(request.method());
            slot.writeRun = writeRuns && slot.unsafe && handler.mayShareGroupCommit(request);
        }
        if (waiting.isEmpty() && mayDispatch(slot)) {
            start(slot);
        } else {
            waiting.addLast(slot);
        }
    }

    /** Starts the waiting requests that may run now, in order. */
    void startWaiting() {
        while (!waiting.isEmpty() && !closing.getAsBoolean() && mayDispatch(waiting.peekFirst())) start(waiting.pollFirst());
    }

    private boolean mayDispatch(AnswerSlot slot) {
        if (unsafeActive > 0 || !channel.isWritable()) return false;
        return slot.unsafe ? active == 0 : active < WINDOW;
    }

    /** Dispatches the slot and, if it starts a write run, the writes waiting right behind it (up to the window). */
    private void start(AnswerSlot slot) {
        dispatch(slot);
        if (!slot.writeRun) return;
        while (active < WINDOW && !closing.getAsBoolean() && !waiting.isEmpty() && waiting.peekFirst().writeRun
                && channel.isWritable()) {
            dispatch(waiting.pollFirst());
        }
    }

    private static boolean isSafe(HttpMethod m) {
        return m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD) || m.equals(HttpMethod.OPTIONS)
                || m.equals(HttpMethod.TRACE);
    }

    /** Hands the slot's request to the handler now (or answers its refusal), whatever the window. */
    void dispatch(AnswerSlot slot) {
        countDispatched(slot);
        if (slot.rejection != null) {
            FullHttpResponse r = slot.rejection;
            slot.rejection = null;
            slot.respond(r);
            return;
        }
        FullHttpRequest request = slot.request;
        slot.request = null;
        try {
            handler.handle(request, slot);
        } catch (RuntimeException e) {
            log.error("request handler failed on {} {}", request.method(), request.uri(), e);
            if (request.refCnt() > 0) ReferenceCountUtil.release(request);
            slot.respond(Responses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error"));
        } catch (Error e) {
            // Out of heap part way: what the route started may never answer, so the slot gives back
            // what it holds and the connection closes. The request is not released: the route may
            // have handed its body on (a PUT's value, written from it), and a leaked buffer is
            // better than one freed under a write.
            slot.abandon(e);
        }
    }

    /** The slot counts against the window (and the barrier, if unsafe) until {@link #finished}. */
    void countDispatched(AnswerSlot slot) {
        active++;
        slot.dispatched = true;
        if (slot.unsafe) unsafeActive++;
    }

    /** The slot's work is over: it no longer counts against the window or the barrier. */
    void finished(AnswerSlot slot) {
        active--;
        if (slot.unsafe) unsafeActive--;
    }

    /** Takes every waiting slot out of the window, in order (none will start from here). */
    List<AnswerSlot> takeWaiting() {
        List<AnswerSlot> taken = new ArrayList<>(waiting);
        waiting.clear();
        return taken;
    }

    /** Forgets the waiting slots: the connection writes nothing more, and they are dropped with its queue. */
    void clear() {
        waiting.clear();
    }
}
