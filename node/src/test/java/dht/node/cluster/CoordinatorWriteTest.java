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
}
