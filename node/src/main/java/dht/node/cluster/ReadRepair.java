package dht.node.cluster;

import dht.storage.Entry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the replicas a GET asked up to the newest version that GET saw, and holds the GET's
 * answer until a quorum of them has it (blocking read repair, Cassandra 4.0's default): so a read
 * that answered a version is followed by reads that see it or a newer one (monotonic quorum
 * reads), even when the replicas it heard disagreed. {@link RepairingRead} does it for one read;
 * this class holds the policy, the writes and the counters.
 *
 * <p>Which replicas may be sent a version: those that answered an older one, or none, but a value
 * only to those its own write is known to have targeted (a tombstone also to any replica holding
 * an older value, see below). Why that limit: a PUT stores no more than its {@code from} copies
 * (the contract), on the first {@code from} replicas of the key's ordering. A version records the
 * {@code from} its write asked for ({@link Entry#copies()}): the first that many replicas were its
 * targets. A version that does not (written before it was recorded) tells only this: every
 * replica holding it was one of its write's targets, so every replica before the last holder in
 * the ordering was a target too. Either way those are repaired; one past both is not sent a value,
 * as the write may have stopped short of it (PUT v1 with 3/3, PUT v2 with 1/1, a GET with 3/3: v2
 * must not reach the second and third replicas). Such a replica catches up by
 * {@link HintedHandoff}, which keeps hints only for a write's own targets.
 *
 * <p>A tombstone is the exception: it goes to every replica that holds an older value, wherever
 * it is placed. The copy limit is the contract's rule for PUTs, and a stale value left beside a
 * tombstone is a deleted key waiting to come back: once the tombstones are purged (after the grace
 * period, storage-format.md) the old value would be the newest version left and be repaired onto
 * every replica. A replica with no version gets no tombstone: it has nothing to bring back.
 *
 * <p>Invariants: the version sent is one a replica already holds, with its original timestamp, so
 * a repair can never win over a newer write (a replica keeps the newer of two versions); tombstones
 * reach every stale value, so a delete that missed a replica does not come back; a repair never
 * makes a value's copies exceed its write's {@code from}; a read answers no version that fewer
 * than {@code ack} of the replicas it heard hold unless the contract obliges it to. A replica
 * whose call failed is not repaired: nothing is known of what it holds. A failed repair is only
 * counted: the next read of the key tries again. A read waits for its repairs at most the replica
 * timeout (counted in {@link #timedOut()}). {@code targets} is in the key's placement order.
 */
final class ReadRepair {
    private static final Logger log = LoggerFactory.getLogger(ReadRepair.class);

    private final Map<String, Replica> replicas;
    private final long timeoutNanos;
    /** Null: the JDK's delayed executor (tests). */
    private final ScheduledExecutorService timer;
    private final LongAdder sent = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder timedOut = new LongAdder();

    /**
     * @param timeout how long a read waits for its repair writes before it answers without them
     * @param timer   where that wait is timed (a peer network's event loop), or null
     */
    ReadRepair(Map<String, Replica> replicas, Duration timeout, ScheduledExecutorService timer) {
        this.replicas = replicas;
        this.timeoutNanos = timeout.toNanos();
        this.timer = timer;
    }

    /**
     * The newest version among the answers of {@code calls} (same order as {@code targets}; null
     * when none has the key), once {@code ack} of them succeeded and, if those disagree, once
     * {@code ack} of the replicas heard hold it or the wait timed out (then, or when no quorum of
     * them can hold it, an older version a quorum holds where the contract allows: see
     * {@code RepairingRead.settled}); failed with
     * {@link QuorumCall.NotEnoughReplicasException} when fewer than {@code ack} can answer. The
     * replicas still stale once every call is in are repaired after the answer.
     */
    CompletableFuture<Entry> read(List<String> targets, List<CompletableFuture<Entry>> calls, int ack) {
        return read(targets, calls, ack, 0);
    }

    /** As above, the targets placed by membership version {@code placedBy} (0: none), which repairs carry. */
    CompletableFuture<Entry> read(List<String> targets, List<CompletableFuture<Entry>> calls, int ack, long placedBy) {
        if (calls.size() < 2) {
            return QuorumCall.collect(calls, ack).thenApply(answers -> {
                Entry newest = null;
                for (Entry e : answers) {
                    if (e != null && e.supersedes(newest)) newest = e;
                }
                return newest;
            });
        }
        return new RepairingRead(this, targets, calls, ack, placedBy).start();
    }

    /**
     * Whether replica {@code i}, holding {@code held} (null: nothing), may be sent {@code newest},
     * the newest version among the answers, whose last holder in the placement order is
     * {@code lastHolder}.
     */
    static boolean mayReceive(int i, Entry held, Entry newest, int lastHolder) {
        if (held != null && !newest.supersedes(held)) return false; // holds it already
        boolean targeted = i < lastHolder || i < newest.copies();
        boolean staleValueUnderADelete = newest.isTombstone() && held != null && !held.isTombstone();
        return targeted || staleValueUnderADelete;
    }

    /**
     * Sends {@code version} to {@code url}, placed by membership version {@code placedBy} (0: none sent);
     * the future completes exceptionally when the write failed.
     */
    CompletableFuture<Void> send(String url, Entry version, long placedBy) {
        sent.increment();
        CompletableFuture<Void> write;
        try {
            write = replicas.get(url).write(version, placedBy);
        } catch (RuntimeException e) {
            write = CompletableFuture.failedFuture(e);
        }
        return write.whenComplete((ok, failure) -> {
            if (failure != null) {
                failed.increment();
                log.debug("read repair of {} failed: {}", url, failure.toString());
            }
        });
    }

    /** Runs {@code task} once the repair wait is over; the handle cancels it (null if it cannot be). */
    ScheduledFuture<?> afterTimeout(Runnable task) {
        if (timer != null) return timer.schedule(task, timeoutNanos, TimeUnit.NANOSECONDS);
        CompletableFuture.delayedExecutor(timeoutNanos, TimeUnit.NANOSECONDS).execute(task);
        return null;
    }

    /** How many replicas the cluster has: a read's {@code from} may be fewer. */
    int clusterSize() {
        return replicas.size();
    }

    void countTimeout() {
        timedOut.increment();
    }

    /** Repair writes sent so far. */
    long sent() {
        return sent.sum();
    }

    /** Repair writes that failed. */
    long failed() {
        return failed.sum();
    }

    /** Reads answered without the quorum holding the newest version because their repair writes took too long. */
    long timedOut() {
        return timedOut.sum();
    }
}
