package dht.node.http;

import dht.storage.ReadBudget;

/**
 * The heap one GET's answer takes, reserved in the node's answer budget ({@link Admission}) while the
 * store reads the value, before it is copied: with many large values read at once (clients that
 * pipeline GETs of 1 MiB values and do not read the answers), the arrays being built and the answers
 * on their way to the client are what fills a small heap, so a value the budget cannot take is
 * never copied and the GET gets a 503 instead.
 *
 * <p>A value counts as what its array takes of the heap ({@link HeapCost}). Values under
 * {@link WaitingAnswers#UNCOUNTED_ANSWER_BYTES} are not counted, as for waiting answers: a 503 is as large. Once the answer is built, {@link #close()} hands what is reserved to
 * the answer's {@link AnswerSlot}, which gives it back when the answer is written or dropped. After that,
 * reads of the same request still under way (a replica that answered after the quorum, read for
 * read repair) neither reserve nor give back: what they copy is not held for the client, and
 * what they read before the close was handed over with the rest.
 */
final class AnswerReservation implements ReadBudget {
    private final Admission admission;
    private long held;
    private boolean closed;

    AnswerReservation(Admission admission) {
        this.admission = admission;
    }

    /** What a value of {@code bytes} is counted as (0 if it is not counted). */
    static long cost(int bytes) {
        return bytes < WaitingAnswers.UNCOUNTED_ANSWER_BYTES ? 0 : HeapCost.ofArray(bytes);
    }

    @Override
    public synchronized boolean tryReserve(int bytes) {
        long cost = cost(bytes);
        if (closed || cost == 0) return true;
        if (!admission.tryReserveAnswer(cost)) return false;
        held += cost;
        return true;
    }

    @Override
    public synchronized void release(int bytes) {
        long cost = cost(bytes);
        if (closed || cost == 0) return;
        admission.releaseAnswer(cost);
        held -= cost;
    }

    /** Ends the reservation: returns the bytes held, which the caller now owns. */
    synchronized long close() {
        closed = true;
        long h = held;
        held = 0;
        return h;
    }
}
