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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A joining node stopped gracefully while it reads a member's stream, then started again on its
 * data: the stream it was reading is resumed, not taken as done, so once the join ends every key
 * is on exactly its three replicas among the four. Before, the stop saved that stream as done,
 * the restarted joiner skipped the rest of it, and the member's cleanup dropped those keys.
 */
class JoinerStoppedMidStreamTest {
    static final int KEYS = 1_500;
    static final String PAD = "z".repeat(2_000);

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

    private long field(String url, String name) throws Exception {
        Matcher m = Pattern.compile("\"" + name + "\":(-?[0-9]+)").matcher(send(url, "GET", "/v0/status", null).body());
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private boolean holds(String url, int k) throws Exception {
        String key = "key" + k;
        HttpResponse<String> r = send(url, "GET", "/v0/entities?scope=local&start=" + key + "&end=" + key + "%00", null);
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body().contains("v" + k + "-" + PAD);
    }

    private List<String> misplaced(List<String> members) throws Exception {
        Placement placement = new Placement(members);
        List<String> out = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            List<String> owners = placement.replicas(("key" + k).getBytes(StandardCharsets.UTF_8), 3);
            for (String m : members) {
                if (holds(m, k) != owners.contains(m)) out.add("key" + k + (owners.contains(m) ? " missing on " : " extra on ") + m);
            }
        }
        return out;
    }

    @Test
    void aStreamCutShortByAStopIsResumedAfterTheRestart() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 3; i++) nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(i), dir.resolve("n" + i), urls, 3, null)));
        for (int k = 0; k < KEYS; k++) {
            assertThat(send(urls.get(k % 3), "PUT", "/v0/entity?id=key" + k + "&ack=3", "v" + k + "-" + PAD).statusCode())
                    .isEqualTo(201);
        }
        int port = TestPorts.free();
        String joiner = "http://localhost:" + port;
        Node joining = Node.start(InProcessNodeConfigs.of(port, dir.resolve("joiner"), List.of(joiner), 0, urls.getFirst(),
                dht.node.cluster.HintSettings.DEFAULTS, 1 << 20));
        nodes.add(joining);
        // 1 MiB/s: each member's part, about 0.7 MiB, takes most of a second, written at its end.
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (field(joiner, "bytesScanned") < 100_000 && System.nanoTime() < deadline) Thread.sleep(20);
        joining.close();
        nodes.remove(joining);

        nodes.add(Node.start(InProcessNodeConfigs.of(port, dir.resolve("joiner"), List.of(joiner), 0, null,
                dht.node.cluster.HintSettings.DEFAULTS, 1 << 20)));
        deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!send(joiner, "GET", "/v0/status", null).body().contains("\"joining\":[]") && System.nanoTime() < deadline) {
            Thread.sleep(250);
        }
        List<String> all = new ArrayList<>(urls);
        all.add(joiner);
        deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<String> wrong = misplaced(all);
        while (!wrong.isEmpty() && System.nanoTime() < deadline) { // the members clean up 5 s after the join's end
            Thread.sleep(500);
            wrong = misplaced(all);
        }
        assertThat(wrong).as("keys not on exactly their three replicas among the four").isEmpty();
    }
}
