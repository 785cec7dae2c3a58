package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * A write while data moves: replicas {A, B, C} becoming {A, B, J} (C displaced by the joiner J),
 * ack 2. It needs 2 of the first set and 2 of the second, an answer counting for both when its
 * node is in both.
 */
class MovingWriteQuorumTest {
    // targets in the coordinator's order: the replicas before the change, then the pending one
    static final boolean[] BEFORE = {true, true, true, false};  // A B C J
    static final boolean[] AFTER = {true, true, false, true};
    static final int A = 0, B = 1, C = 2, J = 3;

    final List<CompletableFuture<Void>> calls = new ArrayList<>();
    final CompletableFuture<Void> quorum;

    MovingWriteQuorumTest() {
        for (int i = 0; i < 4; i++) calls.add(new CompletableFuture<>());
        quorum = MovingWriteQuorum.collect(calls, BEFORE, AFTER, 2, 2);
    }

    private void ok(int i) {
        calls.get(i).complete(null);
    }

    private void fail(int i) {
        calls.get(i).completeExceptionally(new IllegalStateException("replica " + i + " failed"));
    }

    @Test
    void twoNodesInBothSetsAreEnoughWithoutTheDisplacedOneOrTheJoiner() {
        ok(A);
        assertThat(quorum).isNotDone();
        ok(B);
        assertThat(quorum).isCompleted();
    }

    @Test
    void aQuorumOfTheOldSetAloneIsNotEnough() {
        ok(A);
        ok(C);
        assertThat(quorum).as("the replicas after the change hold it once: A").isNotDone();
        ok(J);
        assertThat(quorum).isCompleted();
    }

    @Test
    void aQuorumOfTheNewSetAloneIsNotEnough() {
        ok(A);
        ok(J);
        assertThat(quorum).as("the replicas before the change hold it once: A").isNotDone();
        ok(C);
        assertThat(quorum).isCompleted();
    }

    @Test
    void failsAsSoonAsEitherSetCanNoLongerReachItsAck() {
        ok(J);
        fail(A);
        assertThat(quorum).isNotDone();
        fail(B);
        assertThat(quorum).isCompletedExceptionally();
        assertThatThrownBy(quorum::join).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(QuorumCall.NotEnoughReplicasException.class);
    }

    @Test
    void theDisplacedReplicaAndTheJoinerFailingLeaveAAndBEnough() {
        fail(C);
        fail(J);
        assertThat(quorum).isNotDone();
        ok(B);
        ok(A);
        assertThat(quorum).isCompleted();
    }

    @Test
    void laterAnswersChangeNothing() {
        ok(A);
        ok(B);
        fail(C);
        fail(J);
        assertThat(quorum).isCompleted();
    }
}
