package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Anti-entropy between real {@code dht serve} processes, hinted handoff off so that nothing else
 * repairs: a node whose data directory is wiped holds every key it replicates again, deleted keys
 * staying deleted, without any client read.
 */
class AntiEntropyProcessTest {
    static final String NO_HINTS = "-Ddht.hints.bytes=0";

    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    private void startCluster(int n) throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, n, List.of("--anti-entropy-interval", "1000"), NO_HINTS);
    }

    private int write(NodeProcess n, String key, String value) throws Exception {
        return cluster.requests.setUp(n, key, value, 3, 3);
    }

    /** The node's own data ({@code scope=local}), key to value. */
    private Map<String, String> local(NodeProcess n) throws Exception {
        return cluster.requests.local(n);
    }

    private String status(NodeProcess n) throws Exception {
        return cluster.http.send(HttpRequest.newBuilder(URI.create(n.url() + "/v0/status")).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void aWipedNodeHoldsEveryKeyAgainWithoutAnyRead() throws Exception {
        startCluster(3);
        NodeProcess a = cluster.nodes.get(0);
        NodeProcess c = cluster.nodes.get(2);
        Map<String, String> expected = new TreeMap<>();
        for (int i = 0; i < 3_000; i++) {
            String key = String.format("key%05d", i);
            assertThat(write(cluster.nodes.get(i % 2), key, "v" + i)).isEqualTo(201);
            expected.put(key, "v" + i);
        }
        for (int i = 0; i < 3_000; i += 10) {
            String key = String.format("key%05d", i);
            assertThat(write(a, key, null)).isEqualTo(202);
            expected.remove(key);
        }
        assertThat(local(c)).isEqualTo(expected);

        assertThat(c.terminate(Duration.ofSeconds(10))).isZero();
        try (Stream<Path> files = Files.walk(c.data)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        c.startAndAwait(NO_HINTS);

        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        Map<String, String> held = local(c);
        while (!held.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(500);
            held = local(c);
        }
        assertThat(held).as("c's own data after the wipe, through anti-entropy alone").isEqualTo(expected);
        String status = status(c);
        assertThat(status).contains("\"antiEntropy\":{\"" + a.url() + "\":{\"lastExchangeMillis\":");
        assertThat(status).containsPattern("\"keysReceived\":[1-9]");
        // nothing else moves once every replica agrees
        Thread.sleep(3_000);
        assertThat(local(c)).isEqualTo(expected);
    }
}
