package dht.node.cluster;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The quorum of a write made while data moves ({@link Topology#writeTargets}): it succeeds once
 * {@code ack} of the key's replicas before the change and {@code ack} of its replicas after it
 * have acknowledged the write, one answer counting for both sets when its node is in both; it
 * fails as soon as either set can no longer reach its {@code ack}. Reads go to the replicas
 * before the change until it is done and to those after it from then on, so either way a read
 * quorum meets the write.
 *
 * <p>Why not Cassandra's rule ({@code ack} plus one per pending replica, of all targets): it
 * holds the same guarantee but asks for more. With replicas {A, B, C} becoming {A, B, J} and
 * {@code ack} 2, A and B answering are enough; the other rule also waits for C or J, so while
 * data moves every write waited for the slower of two peers, or for a joiner still warming up.
 * Never blocks; later answers are ignored, and calls in flight are left to finish.
 */
final class MovingWriteQuorum {
    private final boolean[] before;
    private final boolean[] after;
    private int neededBefore;
    private int neededAfter;
    private int failuresLeftBefore;
    private int failuresLeftAfter;
    private int failures;
    private int succeeded;
    private boolean decided;
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    private MovingWriteQuorum(boolean[] before, boolean[] after, int ackBefore, int ackAfter) {
        this.before = before;
        this.after = after;
        this.neededBefore = ackBefore;
        this.neededAfter = ackAfter;
        this.failuresLeftBefore = count(before) - ackBefore;
        this.failuresLeftAfter = count(after) - ackAfter;
    }

    private static int count(boolean[] in) {
        int n = 0;
        for (boolean b : in) if (b) n++;
        return n;
    }

    /**
     * @param calls  one write per target, in the order of {@code before} and {@code after}
     * @param before which targets are replicas of the key before the change
     * @param after  which targets are replicas of the key after it
     */
    static CompletableFuture<Void> collect(List<CompletableFuture<Void>> calls, boolean[] before, boolean[] after,
                                           int ackBefore, int ackAfter) {
        if (before.length != calls.size() || after.length != calls.size()) throw new IllegalArgumentException("one flag per call");
        MovingWriteQuorum q = new MovingWriteQuorum(before, after, ackBefore, ackAfter);
        if (ackBefore < 1 || ackAfter < 1 || q.failuresLeftBefore < 0 || q.failuresLeftAfter < 0) {
            throw new IllegalArgumentException("ack " + ackBefore + "/" + ackAfter + " of " + count(before) + "/" + count(after));
        }
        for (int i = 0; i < calls.size(); i++) {
            int target = i;
            calls.get(i).whenComplete((ok, failure) -> QuorumCall.guarded(q.done, () -> q.decide(target, failure)));
        }
        return q.done;
    }

    private void decide(int target, Throwable failure) {
        boolean success = false;
        RuntimeException impossible = null;
        synchronized (this) {
            if (decided) return;
            if (failure == null) {
                succeeded++;
                if (before[target]) neededBefore--;
                if (after[target]) neededAfter--;
                success = neededBefore <= 0 && neededAfter <= 0;
            } else {
                failures++;
                if (before[target]) failuresLeftBefore--;
                if (after[target]) failuresLeftAfter--;
                if (failuresLeftBefore < 0 || failuresLeftAfter < 0) {
                    impossible = new QuorumCall.NotEnoughReplicasException(
                            Math.max(neededBefore, neededAfter) + succeeded, succeeded, failures, failure);
                }
            }
            decided = success || impossible != null;
        }
        // Complete outside the lock: dependent stages run on this thread.
        if (success) done.complete(null);
        if (impossible != null) done.completeExceptionally(impossible);
    }
}
