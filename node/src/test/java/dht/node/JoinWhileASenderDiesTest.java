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
 * A member dies for good while a fourth node joins three (three copies, anti-entropy off): the
 * other members send the keys it would have sent, the join ends without it (its laggard), the dead
 * member can then be removed, and every key ends on exactly its three replicas among the three
 * live nodes. Before, the joiner waited for the dead member's stream for ever, and no change
 * could be made to the cluster while the join was under way.
 */
class JoinWhileASenderDiesTest {
    static final int KEYS = 1_200;
    static final String PAD = "x".repeat(2_000);

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

    private static String value(int k) {
        return "value" + k + "-" + PAD;
    }

    private boolean holds(String url, int k) throws Exception {
        String key = "key" + k;
        HttpResponse<String> r = send(url, "GET", "/v0/entities?scope=local&start=" + key + "&end=" + key + "%00", null);
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body().contains(value(k));
    }

    /** The keys not on exactly the three nodes the placement over {@code members} names. */
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
    void theOthersSendTheKeysOfAMemberThatDiedMidJoinAndTheJoinEnds() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 3; i++) nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(i), dir.resolve("n" + i), urls, 3, null)));
        for (int k = 0; k < KEYS; k++) {
            assertThat(send(urls.get(k % 3), "PUT", "/v0/entity?id=key" + k + "&ack=3", value(k)).statusCode()).isEqualTo(201);
        }
        // The joiner reads the members' streams in URL order at 1 MiB/s: the last is killed before its turn.
        String dead = urls.stream().max(String::compareTo).orElseThrow();
        int deadIndex = urls.indexOf(dead);
        int port = TestPorts.free();
        String joiner = "http://localhost:" + port;
        String via = urls.get((deadIndex + 1) % 3);
        nodes.add(Node.start(InProcessNodeConfigs.of(port, dir.resolve("joiner"), List.of(joiner), 0, via)));
        nodes.get(deadIndex).close();

        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        String status = "";
        while (System.nanoTime() < deadline) {
            status = send(via, "GET", "/v0/status", null).body();
            if (status.contains("\"membershipVersion\":3")) break;
            Thread.sleep(250);
        }
        assertThat(status).as("the join ended without the dead member").contains("\"membershipVersion\":3")
                .contains("\"laggards\":[\"" + dead + "\"]");

        deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        HttpResponse<String> removed;
        do { // until every live node has committed the join's end (the commits go one at a time)
            removed = send(via, "POST", "/internal/v0/membership?op=remove&url=" + dead, "");
            if (removed.statusCode() == 200) break;
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);

        List<String> live = new ArrayList<>(urls);
        live.remove(dead);
        live.add(joiner);
        deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<String> wrong = misplaced(live);
        while (!wrong.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(500);
            wrong = misplaced(live);
        }
        assertThat(wrong).as("keys not on exactly their three replicas among the three live nodes").isEmpty();
        for (int k = 0; k < KEYS; k += 11) {
            assertThat(send(joiner, "GET", "/v0/entity?id=key" + k + "&ack=3", null).body()).isEqualTo(value(k));
        }
    }
}
