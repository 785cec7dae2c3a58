package dht.node.cluster;

import dht.node.text.Plural;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Waits for {@code ack} of {@code n} parallel replica calls without blocking anyone: completes with
 * the first {@code ack} results (which may contain nulls) as soon as they are in, or with
 * {@link NotEnoughReplicasException} as soon as more than {@code n - ack} calls have failed, i.e.
 * success has become impossible. Later answers are ignored; the calls still in flight are left to
 * finish (writes still land on those replicas).
 */
final class QuorumCall<T> {
    private final int ack;
    private final int failuresAllowed;
    private final List<T> results;
    private final CompletableFuture<List<T>> done = new CompletableFuture<>();
    private boolean decided;
    private int failures;

    private QuorumCall(int n, int ack) {
        this.ack = ack;
        this.failuresAllowed = n - ack;
        this.results = new ArrayList<>(ack);
    }

    static <T> CompletableFuture<List<T>> collect(List<CompletableFuture<T>> calls, int ack) {
        if (ack < 1 || ack > calls.size()) {
            throw new IllegalArgumentException("ack " + ack + " of " + calls.size() + " calls");
        }
        QuorumCall<T> call = new QuorumCall<>(calls.size(), ack);
        for (CompletableFuture<T> f : calls) {
            f.whenComplete(call::onAnswer);
        }
        return call.done;
    }

    private void onAnswer(T result, Throwable failure) {
        guarded(done, () -> decide(result, failure));
    }

    /**
     * Runs a quorum's {@code decide} for one answer, never throwing: an Error thrown there (a full
     * heap) would be swallowed by the future the answer's callback hangs on, and {@code done}
     * would never complete, holding its request's permit for good; it completes {@code done}
     * instead.
     */
    static void guarded(CompletableFuture<?> done, Runnable decide) {
        try {
            decide.run();
        } catch (Throwable e) {
            try {
                done.completeExceptionally(e);
            } catch (Throwable again) {
                // not even that: nothing is left to tell
            }
        }
    }

    private void decide(T result, Throwable failure) {
        List<T> success = null;
        NotEnoughReplicasException impossible = null;
        synchronized (this) {
            if (decided) return;
            if (failure == null) {
                results.add(result);
                if (results.size() == ack) {
                    decided = true;
                    success = Collections.unmodifiableList(results);
                }
            } else {
                failures++;
                if (failures > failuresAllowed) {
                    decided = true;
                    impossible = new NotEnoughReplicasException(ack, results.size(), failures, failure);
                }
            }
        }
        // Complete outside the lock: dependent stages run on this thread.
        if (success != null) done.complete(success);
        if (impossible != null) done.completeExceptionally(impossible);
    }

    /** Fewer than {@code ack} replicas succeeded, and no more can. */
    static final class NotEnoughReplicasException extends RuntimeException {
        NotEnoughReplicasException(int ack, int succeeded, int failed, Throwable last) {
            super("needed " + Plural.of(ack, "replica") + ", " + succeeded + " answered, " + failed + " failed, last: " + last,
                    null, false, false);
        }
    }
}
