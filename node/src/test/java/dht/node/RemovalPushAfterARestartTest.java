package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.Placement;
import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
 * Four real nodes in-process, three copies of each key, anti-entropy off, pushes paced at 1 MiB/s:
 * a dead member is removed, and a survivor stopped while it re-creates the copies the dead one
 * held. Started again, it pushes again, so every key ends on all three that stay, with no read
 * and no anti-entropy to repair it.
 */
class RemovalPushAfterARestartTest {
    static final int KEYS = 1200;
    static final String VALUE = "v".repeat(10_000);

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private static NodeConfig config(int port, Path data, List<String> cluster) {
        return InProcessNodeConfigs.of(port, data, cluster, 3, null, dht.node.cluster.HintSettings.DEFAULTS, 1 << 20);
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private long field(String url, String name) throws Exception {
        String status = send(url, "GET", "/v0/status", null).body();
        Matcher m = Pattern.compile("\"" + name + "\":(-?[0-9]+)").matcher(status);
        assertThat(m.find()).as(name + " in " + status).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** The keys some of {@code members} lack (each should hold every key: three copies, three members). */
    private List<String> lacking(List<String> members) throws Exception {
        List<String> out = new ArrayList<>();
        for (String m : members) {
            HttpResponse<String> r = send(m, "GET", "/v0/entities?scope=local&start=key&end=kez", null);
            assertThat(r.statusCode()).isEqualTo(200);
            for (int k = 0; k < KEYS; k++) {
                if (!r.body().contains("key" + k + "\n" + VALUE + k)) {
                    out.add("key" + k + " on " + m);
                }
            }
        }
        return out;
    }

    @Test
    void aSurvivorStoppedMidPushPushesAgainWhenItStarts() throws Exception {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < 4; i++) ports.add(TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 4; i++) nodes.add(Node.start(config(ports.get(i), dir.resolve("n" + i), urls)));
        for (int k = 0; k < KEYS; k++) {
            assertThat(send(urls.get(k % 3), "PUT", "/v0/entity?id=key" + k, VALUE + k).statusCode()).isEqualTo(201);
        }
        String dead = urls.get(3);
        String pusher = urls.get(0);
        // what the first node is to push: the keys it is the first surviving replica of, on another node that gains them
        Placement before = new Placement(urls);
        int owed = 0;
        for (int k = 0; k < KEYS; k++) {
            List<String> r = new ArrayList<>(before.replicas(("key" + k).getBytes(StandardCharsets.UTF_8), 3));
            if (r.remove(dead) && r.getFirst().equals(pusher)) owed++;
        }
        assertThat(owed).as("keys the first node pushes").isGreaterThan(100);
        nodes.get(3).close();

        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        HttpResponse<String> removed;
        do { // until the failure detector sees the dead one down
            removed = send(pusher, "POST", "/internal/v0/membership?op=remove&url=" + dead, "");
            if (removed.statusCode() == 200) break;
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (field(pusher, "keysMoved") == 0 && System.nanoTime() < deadline) Thread.sleep(20);
        long moved = field(pusher, "keysMoved");
        nodes.get(0).close();
        assertThat(moved).as("keys pushed before the stop").isPositive().isLessThan(owed);
        assertThat(Files.exists(dir.resolve("n0").resolve("removal-pending"))).as("the push marked owed").isTrue();

        nodes.set(0, Node.start(config(ports.get(0), dir.resolve("n0"), urls)));
        List<String> members = urls.subList(0, 3);
        deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<String> missing = lacking(members);
        while (!missing.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(500);
            missing = lacking(members);
        }
        assertThat(missing).as("copies not re-created").isEmpty();
        assertThat(Files.exists(dir.resolve("n0").resolve("removal-pending"))).as("the mark, once pushed").isFalse();
    }
}
