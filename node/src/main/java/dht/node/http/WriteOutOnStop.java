package dht.node.http;

import io.netty.channel.ChannelHandlerContext;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A graceful stop's last service to one connection: the answers ready to go on it are written out
 * while its client keeps reading, then the connection closes, as it would have at once. Ready are an
 * answer being written in slices to a client that reads it slowly (it gave its permit back, so the
 * drain did not wait for it), answers done and queued behind it, and refusals (a pipelined 400 or
 * 414) waiting their turn. The first request behind them that was read whole but never ran (held
 * back by the window, or by the client not reading) is answered 503 with Connection: close; one
 * still running when the drain gave up, and everything after, is dropped, and nothing more is read.
 *
 * <p>The stop stays bounded: a client that takes nothing for {@link #STALL_MILLIS} is closed, and
 * the node closes what is left at its own deadline. While a write-out runs, {@link Admission} counts
 * it, so the node knows whom it waits for. Event loop only.
 */
final class WriteOutOnStop {
    /** A write-out whose client takes nothing for this long is closed. */
    static final long STALL_MILLIS = 1000;

    private final ChannelHandlerContext ctx;
    private final Admission admission;
    /** The connection's answer queue, in request order. */
    private final ArrayDeque<AnswerSlot> queue;
    private final DispatchWindow window;
    /** Bytes of the connection's answers not yet taken by the socket. */
    private final LongSupplier unwritten;
    /** The connection reads nothing more: later requests are ignored. */
    private final Runnable stopReading;
    /** Writes the ready answers at the head of the queue. */
    private final Runnable writeReady;
    private boolean running;
    /** Closes the connection when its client takes nothing of the write-out for a while; null when none runs. */
    private StallWatch watch;

    WriteOutOnStop(ChannelHandlerContext ctx, Admission admission, ArrayDeque<AnswerSlot> queue, DispatchWindow window,
                   LongSupplier unwritten, Runnable stopReading, Runnable writeReady) {
        this.ctx = ctx;
        this.admission = admission;
        this.queue = queue;
        this.window = window;
        this.unwritten = unwritten;
        this.stopReading = stopReading;
        this.writeReady = writeReady;
    }

    /** A write-out is under way: the connection closes once its last answer is out. */
    boolean running() {
        return running;
    }

    /**
     * Starts the write-out if there is something to write.
     *
     * @param active the stream being written, or null
     * @return false if there is nothing to write out: a scan in progress (the drain waited for it
     *         already) or no ready answer at the head
     */
    boolean start(ResponseStream active) {
        boolean sliced = active instanceof SlicedBody;
        if (active != null && !sliced) return false;
        int ready = 0;
        AnswerSlot unanswered = null;
        for (AnswerSlot slot : queue) {
            if (slot.response != null || (slot.rejection != null && !slot.dispatched)) {
                ready++;
            } else {
                // Read whole but held back by the window or a client not reading: it never ran, so
                // it gets the stop's 503 (and the connection ends there), as one arriving now would.
                if (!slot.dispatched && slot.request != null) unanswered = slot;
                break;
            }
        }
        if (ready == 0 && !sliced) return false;
        while (queue.size() > ready + (unanswered != null ? 1 : 0)) queue.pollLast().kill();
        List<AnswerSlot> refusals = new ArrayList<>();
        for (AnswerSlot slot : window.takeWaiting()) if (!slot.dead && slot != unanswered) refusals.add(slot); // the rest were in the tail
        stopReading.run();
        running = true;
        admission.writeOutStarted();
        watch = new StallWatch(ctx, STALL_MILLIS, unwritten, () -> running,
                left -> "stopping: closing connection " + ctx.channel().remoteAddress() + ", whose client took none of the "
                        + left + " bytes of answers left to it in " + STALL_MILLIS + " ms");
        for (AnswerSlot refusal : refusals) {
            if (!refusal.dead) window.dispatch(refusal); // answered at once, written in turn
        }
        if (unanswered != null && !unanswered.dead) refuseForStop(unanswered);
        writeReady.run();
        return true;
    }

    /** Answers a request that never ran with the stop's 503 and ends the connection after it; nothing of it is applied. */
    private void refuseForStop(AnswerSlot slot) {
        slot.dropRequest();
        window.countDispatched(slot);
        slot.respondAndClose(Responses.shuttingDown());
    }

    /** The write-out is over (done, or the connection went): the node stops waiting for it. Once. */
    void end() {
        if (!running) return;
        running = false;
        if (watch != null) {
            watch.cancel();
            watch = null;
        }
        admission.writeOutEnded();
    }
}
