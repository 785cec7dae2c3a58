package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class QuorumCallTest {
    private static List<CompletableFuture<String>> pending(int n) {
        List<CompletableFuture<String>> l = new ArrayList<>();
        for (int i = 0; i < n; i++) l.add(new CompletableFuture<>());
        return l;
    }

    @Test
    void completesAsSoonAsAckSucceededWithoutWaitingForTheRest() {
        List<CompletableFuture<String>> calls = pending(3);
        CompletableFuture<List<String>> q = QuorumCall.collect(calls, 2);
        calls.get(2).complete("c");
        assertThat(q).isNotDone();
        calls.get(0).complete(null); // a replica without the key is a success
        assertThat(q).isCompleted();
        assertThat(q.join()).containsExactly("c", null);
        calls.get(1).complete("late"); // ignored
        assertThat(q.join()).containsExactly("c", null);
    }

    /** A replica failure whose description cannot even be made, as on a full heap. */
    private static final class Indescribable extends RuntimeException {
        Indescribable() {
            super(null, null, false, false);
        }

        @Override
        public String toString() {
            throw new OutOfMemoryError("injected: Java heap space");
        }
    }

    /**
     * An Error while the quorum decides (here, building its failure's message) fails the quorum
     * instead of leaving it pending for good: thrown in a callback it was swallowed by the future,
     * and the request waiting on the quorum held its permit forever.
     */
    @Test
    void anErrorWhileDecidingFailsTheQuorumInsteadOfLeavingItPending() {
        List<CompletableFuture<String>> calls = pending(1);
        CompletableFuture<List<String>> q = QuorumCall.collect(calls, 1);
        calls.getFirst().completeExceptionally(new Indescribable());
        assertThat(q).isCompletedExceptionally();
        assertThatThrownBy(q::join).hasCauseInstanceOf(OutOfMemoryError.class);
    }

    @Test
    void failsAsSoonAsSuccessIsImpossible() {
        List<CompletableFuture<String>> calls = pending(3);
        CompletableFuture<List<String>> q = QuorumCall.collect(calls, 2);
        calls.get(0).completeExceptionally(new RuntimeException("down"));
        assertThat(q).isNotDone();
        calls.get(1).completeExceptionally(new RuntimeException("timeout"));
        assertThat(q).isCompletedExceptionally();
        try {
            q.join();
        } catch (CompletionException e) {
            assertThat(e.getCause()).isInstanceOf(QuorumCall.NotEnoughReplicasException.class);
        }
        calls.get(2).complete("x"); // too late, ignored
    }

    @Test
    void theFailureSaysHowManyReplicasWereNeededInPlainEnglish() {
        List<CompletableFuture<String>> calls = pending(1);
        CompletableFuture<List<String>> q = QuorumCall.collect(calls, 1);
        calls.get(0).completeExceptionally(new RuntimeException("down"));
        assertThat(q.handle((r, e) -> e.getMessage()).join()).contains("needed 1 replica, 0 answered, 1 failed");
    }

    @Test
    void toleratesFailuresWhileAckIsStillReachable() {
        List<CompletableFuture<String>> calls = pending(5);
        CompletableFuture<List<String>> q = QuorumCall.collect(calls, 3);
        calls.get(0).completeExceptionally(new RuntimeException());
        calls.get(1).complete("a");
        calls.get(2).completeExceptionally(new RuntimeException());
        calls.get(3).complete("b");
        assertThat(q).isNotDone();
        calls.get(4).complete("c");
        assertThat(q.join()).containsExactly("a", "b", "c");
    }

    @Test
    void allMustAnswerWhenAckEqualsFrom() {
        List<CompletableFuture<String>> calls = pending(2);
        CompletableFuture<List<String>> q = QuorumCall.collect(calls, 2);
        calls.get(0).complete("a");
        calls.get(1).completeExceptionally(new RuntimeException());
        assertThat(q).isCompletedExceptionally();
    }

    @Test
    void alreadyCompletedCallsAreCounted() {
        List<CompletableFuture<String>> calls = List.of(CompletableFuture.completedFuture("x"));
        assertThat(QuorumCall.collect(calls, 1).join()).containsExactly("x");
    }
}
