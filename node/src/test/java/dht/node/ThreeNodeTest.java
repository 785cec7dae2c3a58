package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real nodes in-process (LSM engine, cluster layer, this HTTP server) talking over real
 * sockets: the internal routes served here work with the cluster layer's peer client.
 */
class ThreeNodeTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    List<NodeConfig> configs() throws Exception {
        List<Integer> ports = List.of(TestNode.freePort(), TestNode.freePort(), TestNode.freePort());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        List<NodeConfig> out = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            out.add(new NodeConfig(ports.get(i), dir.resolve("n" + i), urls.get(i), urls, 256,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES,
                    NodeConfig.DEFAULT_MAX_HEADER_BYTES, Duration.ofMillis(500), false, 1 << 20, null));
        }
        return out;
    }

    HttpResponse<String> send(int node, String method, String pathAndQuery, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(node).port() + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build();
        return client.send(r, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void writesThroughOneNodeAreSeenThroughTheOthersAndSurviveANodeDown() throws Exception {
        for (NodeConfig c : configs()) nodes.add(Node.start(c));
        for (int i = 0; i < 30; i++) {
            assertThat(send(i % 3, "PUT", "/v0/entity?id=key" + i, "v" + i).statusCode()).isEqualTo(201);
        }
        assertThat(send(2, "DELETE", "/v0/entity?id=key0", null).statusCode()).isEqualTo(202);
        assertThat(send(0, "PUT", "/v0/entity?id=key1", "v1b").statusCode()).isEqualTo(201);
        for (int i = 0; i < 30; i++) {
            HttpResponse<String> r = send((i + 1) % 3, "GET", "/v0/entity?id=key" + i, null);
            if (i == 0) {
                assertThat(r.statusCode()).isEqualTo(404);
            } else {
                assertThat(r.statusCode()).as("key%d", i).isEqualTo(200);
                assertThat(r.body()).isEqualTo(i == 1 ? "v1b" : "v" + i);
            }
        }
        HttpResponse<String> scan = send(1, "GET", "/v0/entities?start=key&end=key2&scope=cluster", null);
        assertThat(scan.statusCode()).isEqualTo(200);
        assertThat(scan.body()).startsWith("key1\nv1bkey10\nv10").doesNotContain("key0\n");
        String status = send(0, "GET", "/v0/status", null).body();
        assertThat(status).contains("\"up\"").doesNotContain("\"down\"");

        nodes.get(2).close();
        assertThat(send(0, "PUT", "/v0/entity?id=later", "x").statusCode()).isEqualTo(201); // 2 of 3
        assertThat(send(1, "GET", "/v0/entity?id=later", null).body()).isEqualTo("x");
        assertThat(send(0, "PUT", "/v0/entity?id=all&ack=3", "x").statusCode()).isEqualTo(504);
        HttpResponse<String> quorumScan = send(0, "GET", "/v0/entities?start=key&end=key2&scope=cluster", null);
        assertThat(quorumScan.statusCode()).isEqualTo(200);
        assertThat(quorumScan.body()).startsWith("key1\nv1bkey10\nv10");
    }
}
