package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.Placement;
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
 * {@code --replication-factor} on four real nodes in-process: the default {@code from} is the
 * factor (so a PUT makes that many copies, on the first nodes of the key's placement among all
 * four), {@code ack} defaults to a majority of it, an explicit {@code from} may still reach the
 * cluster size, and the status says the factor.
 */
class ReplicationFactorTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    List<String> urls;

    void start(int n, int replicationFactor) throws Exception {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < n; i++) ports.add(TestPorts.free());
        urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < n; i++) {
            nodes.add(Node.start(new NodeConfig(ports.get(i), dir.resolve("n" + i), urls.get(i), urls, 256,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES,
                    NodeConfig.DEFAULT_MAX_HEADER_BYTES, Duration.ofSeconds(2), false, 1 << 20, null, 0,
                    NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults(), NodeConfig.DEFAULT_COMPRESSION)
                    .withReplicationFactor(replicationFactor)));
        }
    }

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    HttpResponse<String> send(int node, String method, String pathAndQuery, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(urls.get(node) + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build();
        return client.send(r, HttpResponse.BodyHandlers.ofString());
    }

    /** Whether node {@code n}'s own store holds {@code key} (its local scan of exactly that key). */
    boolean holds(int n, String key) throws Exception {
        HttpResponse<String> r = send(n, "GET", "/v0/entities?scope=local&start=" + key + "&end=" + key + "%00", null);
        assertThat(r.statusCode()).isEqualTo(200);
        return !r.body().isEmpty();
    }

    @Test
    void theDefaultFromIsTheReplicationFactorAmongAllNodes() throws Exception {
        start(4, 2);
        for (int k = 0; k < 20; k++) {
            String key = "key" + k;
            assertThat(send(k % 4, "PUT", "/v0/entity?id=" + key, "v" + k).statusCode()).isEqualTo(201);
            List<String> owners = new Placement(urls).replicas(key.getBytes(StandardCharsets.UTF_8), 2);
            for (int n = 0; n < 4; n++) {
                assertThat(holds(n, key)).as("%s on %s", key, urls.get(n)).isEqualTo(owners.contains(urls.get(n)));
            }
            assertThat(send((k + 1) % 4, "GET", "/v0/entity?id=" + key, null).body()).isEqualTo("v" + k);
        }
        assertThat(send(0, "GET", "/v0/status", null).body()).contains("\"replicationFactor\":2");
    }

    @Test
    void anExplicitFromStillReachesEveryNode() throws Exception {
        start(4, 2);
        assertThat(send(0, "PUT", "/v0/entity?id=all&from=4&ack=4", "v").statusCode()).isEqualTo(201);
        for (int n = 0; n < 4; n++) assertThat(holds(n, "all")).isTrue();
        assertThat(send(1, "GET", "/v0/entity?id=all&from=4&ack=4", null).body()).isEqualTo("v");
    }

    @Test
    void ackBeyondTheFactorWithoutFromIs400() throws Exception {
        start(4, 2);
        HttpResponse<String> r = send(0, "PUT", "/v0/entity?id=k&ack=3", "v");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("replication factor (2, the default 'from')");
        assertThat(send(0, "PUT", "/v0/entity?id=k&from=5", "v").statusCode()).isEqualTo(400);
        assertThat(holds(0, "k") || holds(1, "k") || holds(2, "k") || holds(3, "k")).as("nothing written").isFalse();
    }

    @Test
    void withoutTheFlagEveryNodeHoldsEveryKeyAsBefore() throws Exception {
        start(3, 0);
        assertThat(send(0, "PUT", "/v0/entity?id=k", "v").statusCode()).isEqualTo(201);
        for (int n = 0; n < 3; n++) assertThat(holds(n, "k")).isTrue();
        assertThat(send(2, "GET", "/v0/status", null).body()).contains("\"replicationFactor\":3");
        String sorted = String.join("\",\"", urls.stream().sorted().toList());
        assertThat(send(2, "GET", "/v0/status", null).body()).contains("\"members\":[\"" + sorted + "\"]",
                "\"membershipVersion\":1", "\"rebalancing\":false");
        assertThat(java.nio.file.Files.readString(dir.resolve("n2").resolve("membership")))
                .contains("version=1", "replicationFactor=3", "member=" + urls.get(2));
    }
}
