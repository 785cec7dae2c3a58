package dht.node.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.util.ReferenceCountUtil;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * A connection's answers that are ready but wait to be written: an earlier answer is not ready, or
 * the client is not reading what it asked for. A waiting answer's work is over, so its admission
 * permit goes back (waiting answers hold no permits, and a graceful stop does not wait for them). Its
 * bytes count against the node's budget for answers instead (a GET's value has counted since it was
 * read), against the half of it that waiting answers may take, and against its connection's share (a
 * quarter), so that clients that do not read cannot fill the heap, nor crowd out the GETs of clients
 * that do, nor one of them take the whole budget; past any, the answer is replaced by a 503.
 *
 * <p>Answers under {@link #UNCOUNTED_ANSWER_BYTES} (a write's 201 or 202 among them) are neither
 * counted nor replaced: a 503 is as large, and a connection holds a bounded number of answers. The
 * answer at the head of a connection that is reading never waits: it is being written. Event loop only.
 */
final class WaitingAnswers {
    /** What a waiting answer is counted as beyond its body: its head and the objects around it. */
    static final int ANSWER_OVERHEAD_BYTES = 256;
    /** Waiting answers with smaller bodies are not counted. */
    static final int UNCOUNTED_ANSWER_BYTES = 1024;
    /** A stalled sliced answer that could not wait as others do is closed after this long without progress. */
    static final long SLICE_STALL_MILLIS = 1000;

    private final ChannelHandlerContext ctx;
    private final Admission admission;
    /** The connection's answer queue, in request order. */
    private final Iterable<AnswerSlot> queue;
    /** Bytes of the connection's answers not yet taken by the socket. */
    private final LongSupplier unwritten;
    /** True once the connection writes nothing more. */
    private final BooleanSupplier closing;
    /** The slot whose answer is being written in slices; null when none is. */
    private AnswerSlot slicing;
    /** Watches the stalled sliced answer that could not wait as others do; null when none is. */
    private StallWatch sliceWatch;

    WaitingAnswers(ChannelHandlerContext ctx, Admission admission, Iterable<AnswerSlot> queue, LongSupplier unwritten,
                   BooleanSupplier closing) {
        this.ctx = ctx;
        this.admission = admission;
        this.queue = queue;
        this.unwritten = unwritten;
        this.closing = closing;
    }

    /** Every ready answer left in the queue after a write pass waits. */
    void parkTheRest() {
        for (AnswerSlot slot : queue) {
            if (slot.response != null && !slot.parked) park(slot);
        }
    }

    private void park(AnswerSlot slot) {
        int body = slot.response.content().readableBytes();
        if (body >= UNCOUNTED_ANSWER_BYTES && !reserveWaiting(slot, body)) {
            // The 503 is made first: should that fail (a full heap), the answer is still whole and held.
            FullHttpResponse refusal = Responses.overloaded("too many answers waiting for their clients to read them; retry later");
            slot.releaseAnswer();
            ReferenceCountUtil.release(slot.response);
            slot.response = refusal;
        }
        slot.parked = true;
        slot.releaseWork();
    }

    /**
     * Counts a waiting answer of {@code body} bytes against its connection's share, the node's
     * budget and the half of it that waiting answers may take; false if any is spent. A GET's value
     * counted since it was read (EntityRoute) is in the budget and the share already.
     */
    private boolean reserveWaiting(AnswerSlot slot, long body) {
        long counted = slot.answerBytes();
        long n = counted > 0 ? counted : HeapCost.ofArray(body) + ANSWER_OVERHEAD_BYTES;
        if (!withinShare(n) || !admission.tryReserveWaiting(n)) return false;
        if (counted == 0) {
            if (!admission.tryReserveAnswer(n)) {
                admission.releaseWaiting(n);
                return false;
            }
            slot.holdAnswer(admission, n);
        }
        slot.holdWaiting(n);
        return true;
    }

    /**
     * A connection's waiting answers stay within a quarter of the budget, except its first: one
     * answer larger than the share may still wait for a client that reads slowly, instead of closing
     * its connection mid-body.
     */
    private boolean withinShare(long n) {
        long waiting = waitingBytes();
        return waiting == 0 || waiting + n <= admission.maxBodyBytesHeld() / 4;
    }

    /** This connection's answers that wait: what its share of the budget limits. */
    private long waitingBytes() {
        long sum = slicing != null ? slicing.waitingBytes() : 0;
        for (AnswerSlot slot : queue) sum += slot.waitingBytes();
        return sum;
    }

    /** The slot's answer is now being written in slices ({@link SlicedBody}). */
    void slicingStarted(AnswerSlot slot) {
        slicing = slot;
    }

    /** The slot whose answer is being written in slices; null when none is. */
    AnswerSlot slicing() {
        return slicing;
    }

    /** The sliced answer is over (written, or the connection went). */
    void slicingEnded() {
        slicing = null;
        cancelSliceWatch();
    }

    /**
     * The answer being written in slices stalled: the socket took less than was written, so the
     * client is not keeping up. It waits as a parked answer does, so it gives its permit back and
     * counts its bytes. Half written, it cannot become a 503. If the half of the budget that waiting
     * answers may take is spent, it keeps its permit, as an answer being written, and its client
     * gets {@link #SLICE_STALL_MILLIS} to take more of it; one that takes nothing in that time is
     * closed. Closing at once would cut short a client that reads, only slower than the node writes;
     * keeping the permit for good would let clients that do not read take the whole budget. Runs
     * again at each stall, until the answer can wait as others do.
     */
    void slicingStalled(AnswerSlot slot, long body) {
        if (slicing != slot || slot.parked) return;
        if (reserveWaiting(slot, body)) {
            slot.parked = true;
            slot.releaseWork();
            cancelSliceWatch();
            return;
        }
        if (sliceWatch != null) return;
        sliceWatch = new StallWatch(ctx, SLICE_STALL_MILLIS, unwritten,
                () -> slicing == slot && !slot.parked && !closing.getAsBoolean(),
                left -> "closing connection " + ctx.channel().remoteAddress() + ": it took none of an answer of " + body
                        + " bytes in " + SLICE_STALL_MILLIS + " ms, and the budget for answers waiting for their clients is spent");
    }

    private void cancelSliceWatch() {
        if (sliceWatch != null) {
            sliceWatch.cancel();
            sliceWatch = null;
        }
    }
}
