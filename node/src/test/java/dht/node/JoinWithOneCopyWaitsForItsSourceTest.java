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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With one copy of each key no member can stand in for a source that is down: a node joining a
 * lone node that stops mid-join waits for it (past the time after which, with more copies, the
 * others would send its keys), and once it is back the join ends with every key readable. Were
 * the source's stream given up, the join would end without its keys when it came back, and its
 * cleanup would drop the only copies.
 */
class JoinWithOneCopyWaitsForItsSourceTest {
    static final int KEYS = 600;
    static final String PAD = "y".repeat(2_000);

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private String status(String url) throws Exception {
        return send(url, "GET", "/v0/status", null).body();
    }

    @Test
    void aJoinerWaitsForItsOnlySourceAndGetsEveryKey() throws Exception {
        int portA = TestPorts.free();
        String a = "http://localhost:" + portA;
        nodes.add(Node.start(InProcessNodeConfigs.of(portA, dir.resolve("a"), List.of(a), 1, null)));
        for (int k = 0; k < KEYS; k++) {
            assertThat(send(a, "PUT", "/v0/entity?id=key" + k, "v" + k + PAD).statusCode()).isEqualTo(201);
        }
        int portJ = TestPorts.free();
        String joiner = "http://localhost:" + portJ;
        nodes.add(Node.start(InProcessNodeConfigs.of(portJ, dir.resolve("j"), List.of(joiner), 0, a)));
        nodes.getFirst().close();

        Thread.sleep(34_000); // past JoinReceiver.FALLBACK_MILLIS (30 s), after which more copies would stand in
        assertThat(status(joiner)).as("still joining while its only source is down, and rebalancing between tries")
                .contains("\"joining\":[\"" + joiner + "\"]", "\"rebalancing\":true");

        nodes.set(0, Node.start(InProcessNodeConfigs.of(portA, dir.resolve("a"), List.of(a), 1, null)));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!status(joiner).contains("\"joining\":[]") && System.nanoTime() < deadline) Thread.sleep(250);
        assertThat(status(joiner)).contains("\"joining\":[]");
        Thread.sleep(6_000); // the member's cleanup, 5 s after the join's end
        List<String> missing = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            HttpResponse<String> r = send(joiner, "GET", "/v0/entity?id=key" + k, null);
            if (r.statusCode() != 200 || !r.body().equals("v" + k + PAD)) missing.add("key" + k + " " + r.statusCode());
        }
        assertThat(missing).as("keys not read back through the joiner").isEmpty();
    }
}
