package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link MembershipFence} on its own: what a replica refuses, when a pull starts, and when a
 * request waiting for a version may go on.
 */
class MembershipFenceTest {
    private static final Membership V1 = Membership.initial(List.of("http://a", "http://b", "http://c"), 2);
    private static final Membership V2 = V1.withLeaving("http://c");

    private final MembershipState state = new MembershipState("http://a", V1, null, url -> { });
    private final MembershipFence fence = new MembershipFence();
    private final List<String> pulls = new CopyOnWriteArrayList<>();

    MembershipFenceTest() {
        fence.follow(state);
    }

    @Test
    void aReplicaRefusesOnlyCallsOnAnOlderVersionAndPullsANewerOne() throws Exception {
        state.apply(V2);
        ReplicaService replica = new ReplicaService(new MemoryStore(), null, null, new HybridLogicalClock(), fence);
        fence.pullWith(pulls::add);
        assertThat(replica.refusal(1)).as("a call placed by version 1").isEqualTo(2);
        assertThat(replica.refusal(2)).isEqualTo(-1);
        assertThat(pulls).isEmpty();
        assertThat(replica.refusal(3)).as("a call on a version this node lacks is served").isEqualTo(-1);
        waitFor(() -> pulls.size() == 1);
        assertThat(pulls).containsExactly((String) null); // the sender is not known: every peer is asked
    }

    @Test
    void aWaitForAVersionEndsWhenItIsAppliedAndThePullIsAskedOfThePeerThatHasIt() throws Exception {
        fence.pullWith(peer -> {
            pulls.add(peer);
            try {
                state.apply(V2);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        CompletableFuture<Boolean> reached = fence.reach(2, "http://b", Duration.ofSeconds(10));
        assertThat(reached.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(pulls).containsExactly("http://b");
        assertThat(fence.reach(2, "http://b", Duration.ofSeconds(10))).as("already there").isCompletedWithValue(true);
        assertThat(fence.reach(1, "http://b", Duration.ofSeconds(10))).isCompletedWithValue(true);
    }

    @Test
    void aPullFromOnePeerRunsOneAtATimeAndHoldsUpNoOtherSource() throws Exception {
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger finished = new java.util.concurrent.atomic.AtomicInteger();
        fence.pullWith(peer -> {
            pulls.add(String.valueOf(peer));
            try {
                if ("http://b".equals(peer)) hold.await(); // b stalls until released
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                finished.incrementAndGet();
            }
        }); // learns nothing
        fence.heard(5, "http://b");
        waitFor(() -> pulls.size() == 1);
        Thread.sleep(MembershipFence.PULL_SPACING_MILLIS + 50); // past the spacing: only the running pull counts
        fence.heard(5, "http://b");
        fence.heard(5, "http://c");
        fence.heard(5, null);
        waitFor(() -> finished.get() == 2);
        Thread.sleep(50);
        assertThat(pulls).as("b's stalled pull holds up neither c's nor that of every peer, and no second of b's starts")
                .containsExactlyInAnyOrder("http://b", "http://c", "null");
        hold.countDown();
        waitFor(() -> finished.get() == 3);
    }

    @Test
    void aWaitForAVersionNoPeerGivesEndsFalse() throws Exception {
        fence.pullWith(peer -> pulls.add(peer)); // learns nothing
        CompletableFuture<Boolean> reached = fence.reach(5, "http://b", Duration.ofMillis(300));
        assertThat(reached.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(state.current()).isEqualTo(V1);
        waitFor(() -> pulls.size() == 1);
    }

    @Test
    void aPullPutOffForTheSpacingIsMadeOnceItIsOver() throws Exception {
        fence.pullWith(peer -> pulls.add(peer)); // learns nothing
        fence.heard(5, "http://b");
        waitFor(() -> pulls.size() == 1);
        // Refused again at once: within the spacing, the pull is put off, not dropped.
        CompletableFuture<Boolean> reached = fence.reach(5, "http://b", Duration.ofSeconds(2));
        waitFor(() -> pulls.size() == 2);
        assertThat(reached.get(5, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    void nothingIsPulledBeforeAPullerIsSetOrForAnOlderVersion() throws Exception {
        fence.heard(7, "http://b"); // no puller yet
        fence.pullWith(pulls::add);
        fence.heard(1, "http://b");
        Thread.sleep(100);
        assertThat(pulls).isEmpty();
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat(condition.getAsBoolean()).isTrue();
    }
}
