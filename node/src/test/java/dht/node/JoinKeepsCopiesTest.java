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
 * A join keeps each key on as many copies as its write asked for: three in-process nodes with
 * replication factor 2 hold keys written with the default {@code from} (2) and keys written with
 * {@code from=3}; a fourth joins, the stream and the cleanup that follows it place each key on the
 * first {@code from} nodes of its order among the four, and nowhere else.
 */
class JoinKeepsCopiesTest {
    static final int KEYS = 200;

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final List<String> urls = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Whether {@code url}'s own store holds {@code key} (its local scan of exactly that key). */
    private boolean holds(String url, String key) throws Exception {
        HttpResponse<String> r = send(url, "GET", "/v0/entities?scope=local&start=" + key + "&end=" + key + "%00", null);
        assertThat(r.statusCode()).isEqualTo(200);
        return !r.body().isEmpty();
    }

    private void put(String key, String query) throws Exception {
        int code = 0;
        // every copy written (ack = from); a replica slow past the timeout on a busy machine is asked again
        for (int attempt = 0; attempt < 5 && code != 201; attempt++) {
            code = send(urls.get(key.hashCode() & 1), "PUT", "/v0/entity?id=" + key + query, "v-" + key).statusCode();
        }
        assertThat(code).as("PUT %s", key).isEqualTo(201);
    }

    @Test
    void eachKeyEndsOnTheCopiesItsWriteAskedForAfterAJoin() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        for (int p : ports) urls.add("http://localhost:" + p);
        for (int i = 0; i < 3; i++) {
            nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(i), dir.resolve("n" + i), urls, 2, null)));
        }
        for (int k = 0; k < KEYS; k++) {
            put("narrow" + k, "&ack=2");
            put("wide" + k, "&from=3&ack=3");
        }

        int port = TestPorts.free();
        String joiner = "http://localhost:" + port;
        nodes.add(Node.start(InProcessNodeConfigs.of(port, dir.resolve("n3"), List.of(joiner), 0, urls.get(0))));
        List<String> owners = new ArrayList<>(urls);
        owners.add(joiner);
        // the join ends (version 3), then every old member cleans up (5 s after it sees version 3):
        // no node reports rebalancing until then, so that alone says when the copies are final
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        boolean settled = false;
        while (!settled && System.nanoTime() < deadline) {
            Thread.sleep(250);
            settled = true;
            for (String u : owners) {
                String s = send(u, "GET", "/v0/status", null).body();
                settled &= s.contains("\"membershipVersion\":3") && s.contains("\"rebalancing\":false");
            }
        }
        assertThat(settled).as("joined, and no node rebalancing").isTrue();
        // the members' cleanup: each has removed something (every member loses keys to the joiner)
        for (String u : urls) assertThat(send(u, "GET", "/v0/status", null).body()).doesNotContain("\"keysCleanedUp\":0");

        Placement after = new Placement(owners);
        for (int k = 0; k < KEYS; k++) {
            for (String kind : List.of("narrow", "wide")) {
                String key = kind + k;
                List<String> replicas = after.replicas(key.getBytes(StandardCharsets.UTF_8), kind.equals("wide") ? 3 : 2);
                for (String u : owners) {
                    assertThat(holds(u, key)).as("%s on %s (its replicas: %s)", key, u, replicas).isEqualTo(replicas.contains(u));
                }
            }
        }
        for (int k = 0; k < KEYS; k += 7) {
            assertThat(send(joiner, "GET", "/v0/entity?id=wide" + k + "&from=3&ack=3", null).body()).isEqualTo("v-wide" + k);
        }
    }
}
