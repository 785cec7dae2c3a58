package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scan's {@code ack} counts nodes, up to the cluster's size, whatever the replication factor:
 * three in-process nodes keeping two copies take a scan with {@code ack=3} (its default here is
 * 2, and with one more node it would be 3), and hold {@code from}, when given, to the rules of
 * {@code /v0/entity}.
 */
class ScanAckBeyondTheReplicationFactorTest {
    @TempDir
    static Path dir;
    static final List<Node> nodes = new ArrayList<>();
    static final List<String> urls = new ArrayList<>();
    static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        for (int p : ports) urls.add("http://localhost:" + p);
        for (int i = 0; i < 3; i++) nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(i), dir.resolve("n" + i), urls, 2, null)));
        assertThat(send("PUT", "/v0/entity?id=k", "v").statusCode()).isEqualTo(201);
    }

    @AfterAll
    static void stop() {
        for (Node n : nodes) n.close();
    }

    static HttpResponse<String> send(String method, String pathAndQuery, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(urls.getFirst() + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void everyNodeMayBeAskedForAndNoMore() throws Exception {
        HttpResponse<String> all = send("GET", "/v0/entities?start=a&ack=3", null);
        assertThat(all.statusCode()).as(all.body()).isEqualTo(200);
        assertThat(all.body()).isEqualTo("k\nv");
        HttpResponse<String> more = send("GET", "/v0/entities?start=a&ack=4", null);
        assertThat(more.statusCode()).isEqualTo(400);
        assertThat(more.body()).contains("larger than the cluster");
    }

    @Test
    void aFromGivenIsCheckedAsOnEntity() throws Exception {
        assertThat(send("GET", "/v0/entities?start=a&ack=3&from=2", null).statusCode()).isEqualTo(400);
        assertThat(send("GET", "/v0/entities?start=a&ack=3&from=3", null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/v0/entities?start=a&from=4", null).statusCode()).isEqualTo(400);
        assertThat(send("GET", "/v0/entities?start=a&from=x", null).statusCode()).isEqualTo(400);
    }
}
