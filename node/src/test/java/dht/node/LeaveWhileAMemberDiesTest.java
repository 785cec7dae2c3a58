package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.HintSettings;
import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five real nodes in-process, three copies of each key, anti-entropy off, pushes paced at 1 MiB/s:
 * a member dies (stopped for good) while another leaves and pushes to it. The leave still ends,
 * with the dead member as its laggard and the keys it gains kept for it by a live member; the dead
 * member can then be removed, and every key ends on the three that stay. Before, each repeat of the
 * leave failed on the push to the dead member, and no other change could be agreed meanwhile, its
 * removal included.
 */
class LeaveWhileAMemberDiesTest {
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
        return InProcessNodeConfigs.of(port, data, cluster, 3, null, HintSettings.DEFAULTS, 1 << 20);
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + pathAndQuery)).method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private long field(String url, String name) throws Exception {
        String status = send(url, "GET", "/v0/status").body();
        Matcher m = Pattern.compile("\"" + name + "\":(-?[0-9]+)").matcher(status);
        assertThat(m.find()).as(name + " in " + status).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** The keys some of {@code members} lack (each should hold every key: three copies, three members). */
    private List<String> lacking(List<String> members) throws Exception {
        List<String> out = new ArrayList<>();
        for (String m : members) {
            HttpResponse<String> r = send(m, "GET", "/v0/entities?scope=local&start=key&end=kez");
            assertThat(r.statusCode()).isEqualTo(200);
            for (int k = 0; k < KEYS; k++) {
                if (!r.body().contains("key" + k + "\n" + VALUE + k)) out.add("key" + k + " on " + m);
            }
        }
        return out;
    }

    @Test
    void aLeaveEndsWhenAMemberItPushesToDiesAndThatMemberCanBeRemoved() throws Exception {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < 5; i++) ports.add(TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 5; i++) nodes.add(Node.start(config(ports.get(i), dir.resolve("n" + i), urls)));
        for (int k = 0; k < KEYS; k++) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(urls.get(k % 3) + "/v0/entity?id=key" + k))
                    .PUT(HttpRequest.BodyPublishers.ofString(VALUE + k)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(201);
        }
        String leaving = urls.get(0);
        String dying = urls.get(3);
        CompletableFuture<HttpResponse<String>> leave = http.sendAsync(HttpRequest.newBuilder(
                        URI.create(leaving + "/internal/v0/membership?op=leave&url=" + leaving))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofString());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (field(leaving, "keysMoved") == 0 && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(leave).as("the leave, still pushing").isNotDone();
        nodes.get(3).close(); // dead for good

        HttpResponse<String> left = leave.get(120, TimeUnit.SECONDS);
        assertThat(left.statusCode()).as(left.body()).isEqualTo(200);
        assertThat(left.body()).as("the leave's end, without the dead member").contains("laggard=" + dying);
        nodes.get(0).close(); // its process would exit now

        deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        HttpResponse<String> removed;
        do { // until the failure detector sees the dead one down
            removed = send(urls.get(1), "POST", "/internal/v0/membership?op=remove&url=" + dying);
            if (removed.statusCode() == 200) break;
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);

        List<String> members = List.of(urls.get(1), urls.get(2), urls.get(4));
        deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<String> missing = lacking(members);
        while (!missing.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(500);
            missing = lacking(members);
        }
        assertThat(missing).as("keys not on all three that stay").isEmpty();
    }
}
