package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the coordinator sends for a write. Each copy records how many copies the write asked for
 * (its {@code from}). A write whose quorum cannot be reached because too many of its replicas are
 * known down is refused before anything is written: no replica, this node included, keeps a copy
 * of a write the client was told failed, so no later read can find it on one replica alone. A
 * write whose quorum the replicas still up can make goes everywhere it can, as before.
 */
class CoordinatorWriteTest {
    static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
    final List<String> urls = List.of("http://a:1", "http://b:1", "http://c:1");
    final Map<String, RecordingReplica> replicas = new LinkedHashMap<>();
    final ReplicatingCoordinator coordinator;

    CoordinatorWriteTest() {
        for (String u : urls) replicas.put(u, new RecordingReplica(u));
        Map<String, Replica> view = Map.copyOf(replicas);
        coordinator = new ReplicatingCoordinator(new Placement(urls), view, new HybridLogicalClock(),
                new ReadRepair(view, Duration.ofSeconds(1), null), new FullRepair(view), null);
    }

    private int copies() {
        return replicas.values().stream().mapToInt(r -> r.written.size()).sum();
    }

    @Test
    void everyCopyRecordsTheCopiesItsWriteAskedFor() {
        assertThat(coordinator.put(KEY, "v".getBytes(StandardCharsets.UTF_8), new Quorum(1, 2)).join()).isEqualTo(Answer.STORED);
        List<String> order = new Placement(urls).replicas(KEY, 3);
        assertThat(replicas.get(order.get(0)).written).singleElement().extracting(e -> e.copies()).isEqualTo(2);
        assertThat(replicas.get(order.get(1)).written).singleElement().extracting(e -> e.copies()).isEqualTo(2);
        assertThat(replicas.get(order.get(2)).written).as("past from").isEmpty();
    }

    @Test
    void aPutOrDeleteThatCannotReachItsQuorumWritesNothing() {
        replicas.get(urls.get(1)).down = true;
        replicas.get(urls.get(2)).down = true;
        assertThat(coordinator.put(KEY, "v".getBytes(StandardCharsets.UTF_8), new Quorum(2, 3)).join())
                .isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
        assertThat(coordinator.delete(KEY, new Quorum(2, 3)).join()).isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
        assertThat(copies()).as("the replica still up was sent nothing").isZero();
    }

    @Test
    void aQuorumTheReplicasUpCanMakeIsWrittenToThemAll() {
        replicas.get(urls.get(2)).down = true;
        assertThat(coordinator.put(KEY, "v".getBytes(StandardCharsets.UTF_8), new Quorum(2, 3)).join())
                .isEqualTo(Answer.STORED);
        assertThat(coordinator.put(KEY, "w".getBytes(StandardCharsets.UTF_8), new Quorum(1, 3)).join())
                .isEqualTo(Answer.STORED);
        assertThat(copies()).isEqualTo(4);
    }

    @Test
    void whileANodeJoinsAWriteNeedsAckOfTheReplicasBeforeAndAfterNotOfEveryTarget() {
        // a, b, c hold every key (factor 3); j joins. For each key j displaces one of them.
        String joiner = "http://j:1";
        Membership joining = new Membership(2, urls, List.of(joiner), List.of(), 3);
        Map<String, Replica> all = new LinkedHashMap<>();
        Map<String, Replica> silent = new LinkedHashMap<>();
        for (String u : urls) all.put(u, replicas.get(u));
        all.put(joiner, new RecordingReplica(joiner));
        for (String u : List.of(urls.get(0), urls.get(1), urls.get(2), joiner)) {
            silent.put(u, new Replica() { // answers nothing: a write to it stays in flight
                @Override public String url() { return u; }
                @Override public java.util.concurrent.CompletableFuture<dht.storage.Entry> read(byte[] key) {
                    return new java.util.concurrent.CompletableFuture<>();
                }
                @Override public java.util.concurrent.CompletableFuture<Void> write(dht.storage.Entry e) {
                    return new java.util.concurrent.CompletableFuture<>();
                }
            });
        }
        Topology t = new Topology(joining);
        List<String> before = t.readTargets(KEY, 3);
        List<String> after = t.finalReplicas(KEY, 3);
        String displaced = before.stream().filter(u -> !after.contains(u)).findFirst().orElseThrow();
        // the displaced replica and the joiner never answer: the two in both sets are enough
        Map<String, Replica> view = new LinkedHashMap<>(all);
        view.put(displaced, silent.get(displaced));
        view.put(joiner, silent.get(joiner));
        assertThat(coordinatorOver(t, view).put(KEY, "v".getBytes(StandardCharsets.UTF_8), new Quorum(2, 3)))
                .succeedsWithin(Duration.ofSeconds(5)).isEqualTo(Answer.STORED);

        // one of the two in both sets silent: the displaced replica alone does not make the new set's 2
        String kept = after.stream().filter(before::contains).findFirst().orElseThrow();
        Map<String, Replica> view2 = new LinkedHashMap<>(all);
        view2.put(kept, silent.get(kept));
        view2.put(joiner, silent.get(joiner));
        assertThat(coordinatorOver(t, view2).put(KEY, "w".getBytes(StandardCharsets.UTF_8), new Quorum(2, 3)))
                .as("2 of the replicas before, 1 of those after").isNotDone();
    }

    @Test
    void writesHeldUntilThePeersClocksWereAskedAreMadeInTheOrderTheyCame() {
        java.util.concurrent.CompletableFuture<Void> ask = new java.util.concurrent.CompletableFuture<>();
        FirstClockReading gate = new FirstClockReading(() -> ask, () -> false, Duration.ofSeconds(30));
        Map<String, Replica> view = Map.copyOf(replicas);
        ReplicatingCoordinator held = new ReplicatingCoordinator(() -> new Topology(Membership.initial(urls, 3)), view,
                new HybridLogicalClock(), new ReadRepair(view, Duration.ofSeconds(1), null), new FullRepair(view), null,
                null, Duration.ZERO, gate);
        var put = held.put(KEY, "v".getBytes(StandardCharsets.UTF_8), new Quorum(3, 3));
        var delete = held.delete(KEY, new Quorum(3, 3));
        assertThat(put).isNotDone();
        assertThat(copies()).as("nothing sent before the ask is over").isZero();

        ask.complete(null);

        assertThat(put).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(Answer.STORED);
        assertThat(delete).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(Answer.DELETED);
        for (RecordingReplica r : replicas.values()) {
            assertThat(r.written).hasSize(2);
            assertThat(r.written.get(1).timestamp()).as("the delete, held second, is stamped later")
                    .isGreaterThan(r.written.get(0).timestamp());
        }
    }

    private static ReplicatingCoordinator coordinatorOver(Topology t, Map<String, Replica> view) {
        return new ReplicatingCoordinator(() -> t, view, new HybridLogicalClock(),
                new ReadRepair(view, Duration.ofSeconds(1), null), new FullRepair(view), null, null, Duration.ZERO, FirstClockReading.none());
    }
}
