package dht.cli;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dht.testkit.NetworkNamespaces;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FaultRun}s against three real {@code dht serve} processes, each in a network namespace
 * of its own on its own address, while a random node is cut off from its peers (and sometimes from
 * the clients, or one way only) and healed. Needs root and iproute2 (CI runs as root); skipped
 * elsewhere, saying why. {@code -Ddht.seed=N} replays a run's random choices.
 */
class PartitionsProcessTest {
    static final int PORT = 8080;

    @TempDir
    Path tmp;

    private final List<NodeProcess> nodes = new ArrayList<>();
    private NetworkNamespaces net;

    @BeforeAll
    static void needsNamespaces() {
        assumeTrue(NetworkNamespaces.isAvailable(),
                () -> "network namespaces unavailable (" + NetworkNamespaces.unavailableReason() + "): the partition runs need root and iproute2");
    }

    @AfterEach
    void stopAll() throws Exception {
        for (NodeProcess n : nodes) n.close();
        if (net != null) net.close();
    }

    @Test
    void nodesCutOffAndHealedLoseNoAcknowledgedWrite() throws Exception {
        run(Duration.ofSeconds(30));
    }

    @Test
    @Tag("faults-long")
    void nodesCutOffAndHealedLoseNoAcknowledgedWriteInALongRun() throws Exception {
        run(Duration.ofMinutes(5));
    }

    private void run(Duration length) throws Exception {
        net = NetworkNamespaces.create(3);
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < 3; i++) urls.add("http://" + net.address(i) + ":" + PORT);
        String cluster = String.join(",", urls);
        for (int i = 0; i < 3; i++) {
            nodes.add(new NodeProcess(net.address(i), List.of("ip", "netns", "exec", net.name(i)), PORT, tmp.resolve("n" + i),
                    List.of("--cluster", cluster, "--self", urls.get(i), "--anti-entropy-interval", "5000")));
        }
        for (NodeProcess n : nodes) n.start();
        for (NodeProcess n : nodes) n.awaitReady(Duration.ofSeconds(60));
        FaultRun.run(urls, new NetworkFaults(net, 3), 2_000, length, Long.getLong("dht.seed", System.nanoTime()));
    }
}
