package dht.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FaultRun}s against three real {@code dht serve} processes (hints, read repair and
 * anti-entropy all on) while random nodes are SIGKILLed and restarted on their data, or SIGSTOPped
 * and thawed, sometimes two at once. {@code -Ddht.seed=N} replays a run's random choices.
 */
class FaultsProcessTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    @Test
    void killedAndFrozenNodesLoseNoAcknowledgedWrite() throws Exception {
        run(Duration.ofSeconds(40));
    }

    @Test
    @Tag("faults-long")
    void killedAndFrozenNodesLoseNoAcknowledgedWriteInALongRun() throws Exception {
        run(Duration.ofMinutes(5));
    }

    private void run(Duration length) throws Exception {
        // anti-entropy every 5 s, so that exchanges run during the faults too
        NodeProcess.startCluster(cluster.nodes, tmp, 3, List.of("--anti-entropy-interval", "5000"));
        FaultRun.run(cluster.nodes.stream().map(NodeProcess::url).toList(), new ProcessFaults(cluster.nodes), 1_000, length,
                Long.getLong("dht.seed", System.nanoTime()));
    }
}
