package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.Placement;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dht repair} as its own process against real {@code dht serve} processes, hinted handoff
 * off so that nothing else repairs: a node that was down while keys were written, updated and
 * deleted holds every key's newest version afterwards, and a node down or frozen during the repair
 * makes it incomplete (exit 1) with a message naming the node.
 */
class RepairProcessTest {
    static final String NO_HINTS = "-Ddht.hints.bytes=0";

    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    private List<String> urls;

    private void startCluster(int n) throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, n, NO_HINTS);
        urls = cluster.nodes.stream().map(NodeProcess::url).toList();
    }

    private int write(NodeProcess n, String method, String key, String value, int ack, int from) throws Exception {
        return cluster.requests.setUp(n, key, value, ack, from);
    }

    /** The node's own data ({@code scope=local}), key to value. */
    private Map<String, String> local(NodeProcess n) throws Exception {
        return cluster.requests.local(n);
    }

    private static DhtRun dht(String... args) throws IOException, InterruptedException {
        return DhtRun.of(Duration.ofSeconds(120), args);
    }

    @Test
    void aNodeThatMissedWritesHoldsEveryNewestVersionAfterARepairWithoutAnyRead() throws Exception {
        startCluster(3);
        NodeProcess a = cluster.nodes.get(0);
        NodeProcess b = cluster.nodes.get(1);
        NodeProcess c = cluster.nodes.get(2);
        Map<String, String> expected = new TreeMap<>();
        for (int i = 0; i < 60; i++) {
            assertThat(write(a, "PUT", "r" + i, "old", 3, 3)).isEqualTo(201);
            expected.put("r" + i, "old");
        }
        for (int i = 0; i < 20; i++) {
            assertThat(write(a, "PUT", "gone" + i, "x", 3, 3)).isEqualTo(201);
            expected.put("gone" + i, "x");
        }
        // a key written with one copy, on a node other than c: a repair with from=3 copies it to c
        String single = "single";
        for (int i = 0; new Placement(urls).order(single.getBytes(StandardCharsets.UTF_8)).getFirst().equals(c.url()); i++) {
            single = "single" + i;
        }
        assertThat(c.terminate(Duration.ofSeconds(10))).isZero();
        for (int i = 0; i < 40; i++) {
            assertThat(write(a, "PUT", "r" + i, "new-" + i, 2, 3)).isEqualTo(201);
            expected.put("r" + i, "new-" + i);
        }
        for (int i = 0; i < 20; i++) {
            assertThat(write(b, "PUT", "born" + i, "b" + i, 2, 3)).isEqualTo(201);
            expected.put("born" + i, "b" + i);
        }
        for (int i = 0; i < 10; i++) {
            assertThat(write(b, "DELETE", "gone" + i, null, 2, 3)).isEqualTo(202);
            expected.remove("gone" + i);
        }
        assertThat(write(a, "PUT", single, "one", 1, 1)).isEqualTo(201);
        expected.put(single, "one");
        c.startAndAwait(NO_HINTS);
        assertThat(local(c)).as("before the repair c has only what it had").doesNotContainKeys("born0", single)
                .containsEntry("r0", "old").containsEntry("gone0", "x");

        DhtRun o = dht("repair", "--url", b.url());
        assertThat(o.exitCode()).as(o.stderr()).isZero();
        // 40 updates, 20 new keys and 10 tombstones to c; the single copy to the two nodes without it
        assertThat(o.stderr()).contains("dht repair: complete: 101 keys checked, 72 replicas repaired, 0 repair writes failed, "
                + "0 keys not fully repaired, 0 nodes not reachable");
        assertThat(o.stdout()).isEmpty();

        // only c is left: its own data is what it holds
        a.kill();
        b.kill();
        assertThat(local(c)).isEqualTo(expected);
    }

    @Test
    void aNodeDownOrFrozenDuringTheRepairMakesItIncomplete() throws Exception {
        startCluster(3);
        NodeProcess a = cluster.nodes.get(0);
        NodeProcess c = cluster.nodes.get(2);
        for (int i = 0; i < 20; i++) assertThat(write(a, "PUT", "k" + i, "v", 3, 3)).isEqualTo(201);

        c.freeze();
        DhtRun frozen = dht("repair", "--url", a.url(), "--timeout", "2");
        c.thaw();
        assertThat(frozen.exitCode()).as(frozen.stderr()).isEqualTo(1);
        assertThat(frozen.stderr()).contains("dht repair: node " + c.url() + ": cannot stream its keys (no answer within 2 s); the repair is incomplete")
                .contains("not fully repaired: 504 (sent=0 failed=0 unreachable=1)")
                .contains("dht repair: INCOMPLETE: 20 keys checked").contains("1 node not reachable");

        c.kill();
        DhtRun down = dht("repair", "--url", a.url(), "k1", "k2");
        assertThat(down.exitCode()).as(down.stderr()).isEqualTo(1);
        assertThat(down.stderr()).contains("dht repair: node " + c.url() + ": cannot stream its keys (connection refused)")
                .contains("dht repair: INCOMPLETE: 11 keys checked").contains("run it again once every node is up");

        assertThat(dht("repair", "--url", a.url(), "--from", "4").exitCode()).isEqualTo(2);
        assertThat(dht("repair", "--url", a.url(), "--concurrency", "0").exitCode()).isEqualTo(2);
        assertThat(dht("repair", "--help").exitCode()).isZero();
    }
}
