package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.Placement;
import dht.testkit.Operation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write that failed after it reached only the coordinator, its key's first replica (the peers
 * could not be reached), must not be answered by a quorum read that cannot make a quorum hold it:
 * a later quorum read without that node would go back to the older value. Found by the partition
 * fault run; here with the peers killed (not frozen: a frozen peer takes the write once thawed)
 * and no hints, so that nothing else repairs. Judged by the history checker.
 */
class MonotonicReadsProcessTest {
    static final String NO_HINTS = "-Ddht.hints.bytes=0";

    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    @Test
    void aValueOnlyItsFirstReplicaHoldsIsNotReadUntilAQuorumCanHoldIt() throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, 3, NO_HINTS);
        List<String> urls = cluster.nodes.stream().map(NodeProcess::url).toList();
        NodeProcess a = cluster.nodes.get(0);
        NodeProcess b = cluster.nodes.get(1);
        NodeProcess c = cluster.nodes.get(2);
        Placement placement = new Placement(urls);
        String key = "m";
        for (int i = 0; !placement.order(key.getBytes(StandardCharsets.UTF_8)).getFirst().equals(a.url()); i++) key = "m" + i;

        try (ClientWorkload client = new ClientWorkload(urls)) {
            client.put(0, a.url(), key, "v1");
            Thread.sleep(300); // the third copy lands too
            b.kill();
            c.kill();
            client.put(0, a.url(), key, "v2"); // only a takes it
            b.start(NO_HINTS);
            c.start(NO_HINTS);
            b.awaitReady(Duration.ofSeconds(60));
            c.awaitReady(Duration.ofSeconds(60));
            readUntilAnswered(client, a, key); // a, b and c: v2 on a alone
            a.kill();
            readUntilAnswered(client, b, key); // b and c
            List<Operation> history = client.history.operations();
            assertThat(history.get(0).outcome()).as("the write of v1").isEqualTo(Operation.Outcome.OK);
            assertThat(history.get(1).outcome()).as("the write of v2").isNotEqualTo(Operation.Outcome.OK);
            HistoryVerdict.assertNoViolation(history, "monotonic-reads");
        }
    }

    /** A quorum GET through {@code via}, recorded, retried until answered 200 or 404 (a restarted peer may not be known up yet). */
    private static void readUntilAnswered(ClientWorkload client, NodeProcess via, String key) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!client.get(0, via.url(), key)) {
            assertThat(System.nanoTime()).as("a quorum read through %s answered", via.url()).isLessThan(deadline);
            Thread.sleep(200);
        }
    }
}
