package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node started alone ({@code bin/dht serve} without {@code --cluster}) is a cluster of one that
 * can grow: a second node joins it under client writes and reads, checked by a history, half the
 * keys stream to it, and the replication factor stays the one the cluster was created with (1),
 * so each key ends on exactly one of the two nodes.
 */
class OneNodeGrowsProcessTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    @Test
    void aSecondNodeJoinsANodeStartedAloneUnderTraffic() throws Exception {
        NodeProcess first = new NodeProcess(TestPorts.free(), tmp.resolve("n0"), List.of("--anti-entropy-interval", "0"));
        cluster.nodes.add(first);
        first.startAndAwait();
        MembershipTraffic traffic = cluster.traffic(cluster.nodes);
        traffic.preload(cluster.requests, 1, 1);
        traffic.start(3);

        Thread.sleep(1_000);
        NodeProcess second = new NodeProcess(TestPorts.free(), tmp.resolve("n1"),
                List.of("--join", first.url(), "--anti-entropy-interval", "0"));
        cluster.nodes.add(second);
        second.startAndAwait();
        assertThat(NodeStatus.await(List.of(first, second), "\"joining\":[]", Duration.ofSeconds(60))).isTrue();
        for (NodeProcess n : cluster.nodes) {
            assertThat(NodeStatus.of(n)).as(n.url()).contains("\"membershipVersion\":3", "\"replicationFactor\":1",
                    "\"members\":[\"" + String.join("\",\"", List.of(first.url(), second.url()).stream().sorted().toList()) + "\"]");
        }
        assertThat(NodeStatus.of(second)).matches("(?s).*\"keysMoved\":[1-9].*");
        traffic.targets.add(second);
        Thread.sleep(2_000);
        traffic.stop();

        traffic.assertHistoryValid();
        assertThat(traffic.acked()).as("writes acknowledged during the join").isGreaterThan(20);
        // Once the first node has cleaned up, each key is on exactly one node, about half on each.
        Map<String, Integer> copies =
                MembershipTraffic.copiesOnceSettled(cluster.requests, cluster.nodes, MembershipTraffic.KEYS, 1);
        assertThat(copies).hasSize(MembershipTraffic.KEYS);
        assertThat(copies.values()).as("copies per key").containsOnly(1);
        assertThat(cluster.requests.local(second)).as("the new node holds its share").hasSizeBetween(50, 150);
    }
}
