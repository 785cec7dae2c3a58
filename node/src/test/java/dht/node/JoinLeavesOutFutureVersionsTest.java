package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import dht.storage.LsmStore;
import dht.storage.StoreOptions;
import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A joiner keeps no version stamped beyond the max clock offset of its clock: such a version (left
 * by a member whose clock was ahead) would outrank every write made meanwhile, and once in the
 * joiner's store it makes the joiner, restarted, refuse client writes as a node whose clock went
 * back ({@code HybridLogicalClock#startFrom}). Three in-process members hold every key, each an
 * hour ahead in their stores; a fourth joins, is restarted, and takes writes.
 */
class JoinLeavesOutFutureVersionsTest {
    @TempDir
    Path dir;
    private final List<Node> nodes = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aJoinerLeavesOutVersionsFromBeyondTheMaxOffsetAndTakesWritesAfterARestart() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        for (int p : ports) urls.add("http://localhost:" + p);
        long hourAhead = (System.currentTimeMillis() + 3_600_000L) * 1_000L;
        for (int i = 0; i < 3; i++) {
            try (LsmStore s = LsmStore.open(dir.resolve("n" + i), StoreOptions.defaults())) {
                for (int k = 0; k < 50; k++) s.write(List.of(Entry.value(("k" + k).getBytes(StandardCharsets.UTF_8),
                        "ahead".getBytes(StandardCharsets.UTF_8), hourAhead)));
            }
        }
        for (int i = 0; i < 3; i++) nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(i), dir.resolve("n" + i), urls, 3, null)));

        int port = TestPorts.free();
        String joiner = "http://localhost:" + port;
        Node joining = Node.start(InProcessNodeConfigs.of(port, dir.resolve("joiner"), List.of(joiner), 0, urls.getFirst()));
        nodes.add(joining);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        boolean joined = false;
        while (!joined && System.nanoTime() < deadline) {
            Thread.sleep(250);
            String s = send(joiner, "GET", "/v0/status", null).body();
            joined = s.contains("\"membershipVersion\":3") && s.contains("\"rebalancing\":false");
        }
        assertThat(joined).as("joined").isTrue();
        assertThat(send(joiner, "GET", "/v0/entities?scope=local&start=k&end=l", null).body())
                .as("no version from an hour ahead kept").isEmpty();

        joining.close();
        nodes.remove(joining);
        nodes.add(Node.start(InProcessNodeConfigs.of(port, dir.resolve("joiner"), List.of(joiner), 0, null)));
        // Before, the joiner kept those versions and, restarted, refused this as a clock gone back.
        assertThat(send(joiner, "PUT", "/v0/entity?id=fresh&ack=1", "v").statusCode()).isEqualTo(201);
    }
}
