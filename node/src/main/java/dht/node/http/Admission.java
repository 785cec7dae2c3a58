package dht.node.http;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds the work a node has in flight. A request that finds the bound reached is refused at once
 * (503 with Retry-After) instead of waiting: an unbounded queue is how a loaded server runs out of
 * memory and every client's latency grows without limit.
 *
 * <p>Invariants: {@code 0 <= inFlight <= maxInFlight}, {@code 0 <= scans <= maxScans} (a scan
 * holds one permit of each), {@code 0 <= bodyBytesHeld <= maxBodyBytesHeld} and
 * {@code 0 <= waitingAnswerBytes <= maxBodyBytesHeld / 2} and
 * {@code 0 <= answerBytesHeld <= maxBodyBytesHeld}, except for one answer larger than its bound,
 * let through alone. A permit is held from the moment a request is accepted until its answer
 * is written or dropped, or waits for an earlier answer or a client that is not reading, when the
 * answer's bytes count against the answer budget instead (for a scan: until its iterator is
 * closed), so the count is real work, not just requests parsed. Once {@link #close()}d no new permit is given out.
 */
public final class Admission {
    private final int maxInFlight;
    private final int maxScans;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger scans = new AtomicInteger();
    private final long maxBodyBytesHeld;
    private final AtomicLong bodyBytesHeld = new AtomicLong();
    /**
     * Bytes of large answers held: GET values from the moment the store reads them until they are
     * written, and any answer while it waits (behind an earlier answer, or for a client that is not
     * reading); bounded like bodies.
     */
    private final AtomicLong answerBytesHeld = new AtomicLong();
    /**
     * The part of {@link #answerBytesHeld} that waits: at most half of the budget, so that clients
     * that do not read cannot take the room that the GETs of clients that do read are served from.
     */
    private final AtomicLong waitingAnswerBytes = new AtomicLong();
    private volatile boolean closed;
    /**
     * Membership changes in progress here: never refused for load (a refused prepare would abort a
     * join under traffic), but a graceful stop drains them like requests, so that a node stopping
     * as soon as it has left still writes out the answer to its leave.
     */
    private final AtomicInteger changes = new AtomicInteger();
    private final AtomicInteger writingOut = new AtomicInteger();
    /** What scans take of the heap for the blocks they decompress. */
    private final ScanMemory scanMemory = ScanMemory.forHeap(Runtime.getRuntime().maxMemory());

    public Admission(int maxInFlight, int maxScans, long maxBodyBytesHeld) {
        if (maxInFlight < 1 || maxScans < 1 || maxBodyBytesHeld < 1) throw new IllegalArgumentException("limits must be positive");
        this.maxInFlight = maxInFlight;
        this.maxScans = maxScans;
        this.maxBodyBytesHeld = maxBodyBytesHeld;
    }

    /**
     * Scans hold memory and a worker for as long as the client reads: a small share of the bound.
     * Request bodies held at once (being read, or copied and waiting for storage) get a quarter of
     * the heap, and at least two bodies of the largest size, so that many large PUTs at once are
     * refused with 503 instead of exhausting memory.
     */
    public static Admission forLimits(int maxInFlight, int maxBodyBytes) {
        long bodies = Math.max(2L * maxBodyBytes, Runtime.getRuntime().maxMemory() / 4);
        return new Admission(maxInFlight, Math.max(2, Math.min(64, maxInFlight / 16)), bodies);
    }

    /**
     * What a whole body of {@code bytes} is counted as once it is complete: the heap a copy of it
     * takes ({@link HeapCost}), whether or not one is made. While it is being read, its pieces count
     * at their length.
     */
    public static long bodyCost(long bytes) {
        return HeapCost.ofArray(bytes);
    }

    /** Reserves room for {@code n} more body bytes; false (nothing reserved) if that would pass the bound. */
    public boolean tryReserveBody(long n) {
        return tryReserve(bodyBytesHeld, n, maxBodyBytesHeld, false);
    }

    /**
     * Reserves room for an answer of {@code n} bytes (a GET's value as it is read, or an answer
     * that waits); false (nothing reserved) if the answers held would pass the same bound as bodies.
     * An answer larger than the whole bound is let through when no other is held, else a value
     * written under a larger {@code --max-body}, or a heap since made smaller, could never be read.
     */
    public boolean tryReserveAnswer(long n) {
        return tryReserve(answerBytesHeld, n, maxBodyBytesHeld, true);
    }

    public void releaseAnswer(long n) {
        if (n > 0) answerBytesHeld.addAndGet(-n);
    }

    public long answerBytesHeld() {
        return answerBytesHeld.get();
    }

    /** Marks {@code n} bytes of held answers as waiting; false (nothing marked) past half the budget, unless none waits. */
    public boolean tryReserveWaiting(long n) {
        return tryReserve(waitingAnswerBytes, n, maxBodyBytesHeld / 2, true);
    }

    public void releaseWaiting(long n) {
        if (n > 0) waitingAnswerBytes.addAndGet(-n);
    }

    public long waitingAnswerBytes() {
        return waitingAnswerBytes.get();
    }

    /** Adds {@code n} to {@code held} if that stays within {@code max} (or, with {@code firstFits}, if nothing is held). */
    private static boolean tryReserve(AtomicLong held, long n, long max, boolean firstFits) {
        while (true) {
            long h = held.get();
            if (h + n > max && !(firstFits && h == 0)) return false;
            if (held.compareAndSet(h, h + n)) return true;
        }
    }

    public void releaseBody(long n) {
        if (n > 0) bodyBytesHeld.addAndGet(-n);
    }

    public long bodyBytesHeld() {
        return bodyBytesHeld.get();
    }

    public long maxBodyBytesHeld() {
        return maxBodyBytesHeld;
    }

    public boolean tryAcquire() {
        return !closed && increment(inFlight, maxInFlight);
    }

    public void release() {
        inFlight.decrementAndGet();
    }

    /** A membership change begins, unless a graceful stop has begun (false). Not bounded by load. */
    public boolean tryAcquireChange() {
        changes.incrementAndGet();
        if (!closed) return true;
        changes.decrementAndGet();
        return false;
    }

    public void releaseChange() {
        changes.decrementAndGet();
    }

    /** Work a graceful stop waits for: requests in flight and membership changes. */
    public int busy() {
        return inFlight.get() + changes.get();
    }

    public boolean tryAcquireScan() {
        if (closed || !increment(scans, maxScans)) return false;
        if (increment(inFlight, maxInFlight)) return true;
        scans.decrementAndGet();
        return false;
    }

    public void releaseScan() {
        inFlight.decrementAndGet();
        scans.decrementAndGet();
    }

    /** The budget of the heap that scans take for what they decompress ({@link ScanMemory}). */
    public dht.storage.ReadBudget scanMemory() {
        return scanMemory;
    }

    /** A graceful stop writes out a connection's ready answers (WriteOutOnStop): the stop waits for it. */
    void writeOutStarted() {
        writingOut.incrementAndGet();
    }

    void writeOutEnded() {
        writingOut.decrementAndGet();
    }

    /** Connections a graceful stop is still writing answers out to, for clients that read them. */
    public int writingOut() {
        return writingOut.get();
    }

    /** Refuse everything from now on (graceful stop). */
    public void close() {
        closed = true;
    }

    public boolean isClosed() {
        return closed;
    }

    public int inFlight() {
        return inFlight.get();
    }

    public int scans() {
        return scans.get();
    }

    public int maxInFlight() {
        return maxInFlight;
    }

    public int maxScans() {
        return maxScans;
    }

    private static boolean increment(AtomicInteger counter, int max) {
        while (true) {
            int n = counter.get();
            if (n >= max) return false;
            if (counter.compareAndSet(n, n + 1)) return true;
        }
    }
}
