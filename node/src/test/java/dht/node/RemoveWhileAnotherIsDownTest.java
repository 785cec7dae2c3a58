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
 * Five real nodes in-process, three copies of each key, anti-entropy off: one member dies for
 * good and another is down for now. The dead one is removed all the same; the copies it held are
 * re-created, those the member that is down gains kept for it, so once it is back every key is on
 * exactly three of the four, with no read and no anti-entropy to repair it.
 */
class RemoveWhileAnotherIsDownTest {
    static final int KEYS = 150;

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private static NodeConfig config(int port, Path data, List<String> cluster) {
        return InProcessNodeConfigs.of(port, data, cluster, 3, null);
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private boolean holds(String url, int k) throws Exception {
        String key = "key" + k;
        HttpResponse<String> r = send(url, "GET", "/v0/entities?scope=local&start=" + key + "&end=" + key + "%00", null);
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body().contains("value" + k);
    }

    /** The keys not on exactly the three nodes the placement over {@code members} names. */
    private List<String> misplaced(List<String> members) throws Exception {
        Placement placement = new Placement(members);
        List<String> out = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            List<String> owners = placement.replicas(("key" + k).getBytes(StandardCharsets.UTF_8), 3);
            for (String m : members) {
                if (holds(m, k) != owners.contains(m)) {
                    out.add("key" + k + (owners.contains(m) ? " missing on " : " extra on ") + m);
                }
            }
        }
        return out;
    }

    @Test
    void aDeadMemberIsRemovedWhileAnotherIsDownAndEveryKeyEndsOnThreeCopies() throws Exception {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < 5; i++) ports.add(TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 5; i++) nodes.add(Node.start(config(ports.get(i), dir.resolve("n" + i), urls)));
        for (int k = 0; k < KEYS; k++) {
            assertThat(send(urls.get(k % 3), "PUT", "/v0/entity?id=key" + k, "value" + k).statusCode()).isEqualTo(201);
        }
        String dead = urls.get(3);
        String down = urls.get(4);
        nodes.get(3).close();
        nodes.get(4).close();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        HttpResponse<String> removed;
        do { // until the failure detector on the first node sees the dead one down
            removed = send(urls.get(0), "POST", "/internal/v0/membership?op=remove&url=" + dead, "");
            if (removed.statusCode() == 200) break;
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        assertThat(removed.body()).contains("laggard=" + down);

        nodes.set(4, Node.start(config(ports.get(4), dir.resolve("n4"), urls)));
        List<String> members = List.of(urls.get(0), urls.get(1), urls.get(2), down);
        deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
        List<String> wrong = misplaced(members);
        while (!wrong.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(300);
            wrong = misplaced(members);
        }
        assertThat(wrong).as("keys not on exactly their three replicas among the four").isEmpty();
    }
    /**
     * The member that was down never comes back and is removed in turn: every key still ends on
     * the three that stay. The keys it was first surviving replica of were pushed by the next
     * replica, up all along, not left for it to push on its return.
     */
    @Test
    void theMemberThatWasDownRemovedInTurnLeavesEveryKeyOnTheThreeThatStay() throws Exception {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < 5; i++) ports.add(TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 5; i++) nodes.add(Node.start(config(ports.get(i), dir.resolve("n" + i), urls)));
        for (int k = 0; k < KEYS; k++) {
            assertThat(send(urls.get(k % 3), "PUT", "/v0/entity?id=key" + k, "value" + k).statusCode()).isEqualTo(201);
        }
        nodes.get(3).close();
        nodes.get(4).close();
        for (String gone : List.of(urls.get(3), urls.get(4))) {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            HttpResponse<String> removed;
            do {
                removed = send(urls.get(0), "POST", "/internal/v0/membership?op=remove&url=" + gone, "");
                if (removed.statusCode() == 200) break;
                Thread.sleep(200);
            } while (System.nanoTime() < deadline);
            assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        }
        List<String> members = urls.subList(0, 3);
        long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
        List<String> wrong = misplaced(members);
        while (!wrong.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(300);
            wrong = misplaced(members);
        }
        assertThat(wrong).as("keys not on all three that stay").isEmpty();
    }
}
