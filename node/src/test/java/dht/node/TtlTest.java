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
 * {@code PUT ?ttl=SECONDS} on real nodes (LSM engine, cluster layer, HTTP server): the value reads
 * as absent once its expiry has passed, on every replica, across restarts.
 */
class TtlTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final List<NodeConfig> configs = new ArrayList<>();
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private void startCluster(int size) throws Exception {
        List<NodeConfig> singles = new ArrayList<>();
        for (int i = 0; i < size; i++) singles.add(TestNode.config(TestPorts.free(), dir.resolve("n" + i),
                NodeConfig.DEFAULT_MAX_IN_FLIGHT, NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES,
                NodeConfig.DEFAULT_MAX_HEADER_BYTES));
        List<String> urls = singles.stream().map(NodeConfig::self).toList();
        for (NodeConfig c : singles) configs.add(TestNode.inCluster(c, urls));
        for (NodeConfig c : configs) nodes.add(Node.start(c));
    }

    private void restart(int i) throws Exception {
        nodes.get(i).close();
        nodes.set(i, Node.start(configs.get(i)));
    }

    HttpResponse<String> send(int node, String method, String pathAndQuery, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(node).port() + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build();
        return client.send(r, HttpResponse.BodyHandlers.ofString());
    }

    private int status(int node, String method, String pathAndQuery, String body) throws Exception {
        return send(node, method, pathAndQuery, body).statusCode();
    }

    /** The expiry a node's own store holds for {@code key}, read over the internal protocol ("" for none). */
    private String storedExpiry(int node, String key) throws Exception {
        HttpResponse<String> r = send(node, "GET", "/internal/v0/entity?id=" + key, null);
        assertThat(r.statusCode()).as("node %d holds %s", node, key).isEqualTo(200);
        // the header carries the expiry word: the expiry, and the copies its write asked for
        return r.headers().firstValue("X-Dht-Expiry").map(w -> Long.toString(dht.storage.Entry.expiryOf(Long.parseLong(w))))
                .orElse("");
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long wait = epochMillis - System.currentTimeMillis();
        if (wait > 0) Thread.sleep(wait);
    }

    @Test
    void aValueWithATtlReadsAsAbsentAfterItAndALaterPutWithoutTtlIsPermanent() throws Exception {
        startCluster(1);
        long before = System.currentTimeMillis();
        assertThat(status(0, "PUT", "/v0/entity?id=t1&ttl=1", "short")).isEqualTo(201);
        long stamped = System.currentTimeMillis(); // the expiry is between before and this, plus 1 s
        assertThat(status(0, "PUT", "/v0/entity?id=t2&ttl=1", "first")).isEqualTo(201);
        assertThat(status(0, "PUT", "/v0/entity?id=t2", "second")).isEqualTo(201);
        assertThat(status(0, "PUT", "/v0/entity?id=t3&ttl=3600", "long")).isEqualTo(201);
        HttpResponse<String> r = send(0, "GET", "/v0/entity?id=t1", null);
        String scan = send(0, "GET", "/v0/entities?start=t", null).body();
        if (System.currentTimeMillis() < before + 1_000) { // else the machine was too slow to read before the expiry
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("short");
            assertThat(scan).isEqualTo("t1\nshortt2\nsecondt3\nlong");
        }

        sleepUntil(stamped + 1_100);
        assertThat(status(0, "GET", "/v0/entity?id=t1", null)).isEqualTo(404);
        assertThat(send(0, "GET", "/v0/entity?id=t2", null).body()).isEqualTo("second");
        assertThat(send(0, "GET", "/v0/entity?id=t3", null).body()).isEqualTo("long");
        assertThat(send(0, "GET", "/v0/entities?start=t", null).body()).isEqualTo("t2\nsecondt3\nlong");
        assertThat(send(0, "GET", "/v0/entities?start=t&scope=local", null).body()).isEqualTo("t2\nsecondt3\nlong");
    }

    @Test
    void aTtlThatIsNotAWholeNumberInRangeIs400AndChangesNothing() throws Exception {
        startCluster(1);
        assertThat(status(0, "PUT", "/v0/entity?id=k", "kept")).isEqualTo(201);
        for (String bad : List.of("0", "-1", "630720001", "1.5", "abc", "", "1e3", "+5", "%201", "99999999999999999999999")) {
            HttpResponse<String> r = send(0, "PUT", "/v0/entity?id=k&ttl=" + bad, "changed");
            assertThat(r.statusCode()).as("ttl=%s", bad).isEqualTo(400);
            assertThat(r.body()).as("ttl=%s", bad).contains("ttl").doesNotContain("\n\n");
        }
        assertThat(status(0, "PUT", "/v0/entity?id=k&ttl=1&ttl=2", "changed")).isEqualTo(400);
        assertThat(status(0, "GET", "/v0/entity?id=k&ttl=5", null)).isEqualTo(400);
        assertThat(status(0, "DELETE", "/v0/entity?id=k&ttl=5", null)).isEqualTo(400);
        assertThat(send(0, "GET", "/v0/entity?id=k", null).body()).isEqualTo("kept");
        assertThat(status(0, "PUT", "/v0/entity?id=k&ttl=630720000", "longest")).isEqualTo(201);
        assertThat(send(0, "GET", "/v0/entity?id=k", null).body()).isEqualTo("longest");
    }

    @Test
    void anExpiryIsKeptAcrossARestart() throws Exception {
        startCluster(1);
        assertThat(status(0, "PUT", "/v0/entity?id=soon&ttl=2", "x")).isEqualTo(201);
        long stamped = System.currentTimeMillis();
        assertThat(status(0, "PUT", "/v0/entity?id=later&ttl=3600", "y")).isEqualTo(201);
        String later = storedExpiry(0, "later");
        restart(0);
        assertThat(storedExpiry(0, "later")).isEqualTo(later);
        sleepUntil(stamped + 2_100);
        assertThat(status(0, "GET", "/v0/entity?id=soon", null)).isEqualTo(404);
        restart(0);
        assertThat(status(0, "GET", "/v0/entity?id=soon", null)).isEqualTo(404);
        assertThat(send(0, "GET", "/v0/entity?id=later", null).body()).isEqualTo("y");
    }

    @Test
    void everyReplicaHoldsTheSameExpiryAndTheKeyExpiresOnEachOfThem() throws Exception {
        startCluster(3);
        long before = System.currentTimeMillis();
        assertThat(status(1, "PUT", "/v0/entity?id=e1&ttl=2&ack=3", "v")).isEqualTo(201);
        long expiry = Long.parseLong(storedExpiry(0, "e1"));
        assertThat(expiry).isBetween(before + 2_000, System.currentTimeMillis() + 2_000);
        for (int n = 1; n < 3; n++) assertThat(storedExpiry(n, "e1")).as("node %d", n).isEqualTo(Long.toString(expiry));
        restart(2);
        assertThat(storedExpiry(2, "e1")).isEqualTo(Long.toString(expiry));
        for (int n = 0; n < 3; n++) {
            assertThat(send(n, "GET", "/v0/entities?start=e&scope=local", null).body()).as("node %d", n).isEqualTo("e1\nv");
        }
        sleepUntil(expiry + 100);
        for (int n = 0; n < 3; n++) {
            assertThat(send(n, "GET", "/v0/entities?start=e&scope=local", null).body()).as("node %d", n).isEmpty();
            assertThat(send(n, "GET", "/v0/entities?start=e", null).body()).as("node %d", n).isEmpty();
            assertThat(status(n, "GET", "/v0/entity?id=e1&ack=3", null)).as("node %d", n).isEqualTo(404);
        }
        restart(0);
        assertThat(send(0, "GET", "/v0/entities?start=e&scope=local", null).body()).isEmpty();
    }

    /**
     * The newest version decides: one replica still holds an older permanent value, the two others
     * a newer one that has expired; a read of all three, and the cluster scan, find the key absent.
     */
    @Test
    void anExpiredNewestVersionHidesAnOlderLiveOne() throws Exception {
        startCluster(3);
        assertThat(status(0, "PUT", "/v0/entity?id=q&ack=3", "old")).isEqualTo(201);
        long before = System.currentTimeMillis();
        assertThat(status(0, "PUT", "/v0/entity?id=q&ttl=2&from=2&ack=2", "new")).isEqualTo(201); // 2 of its 3 replicas
        long stamped = System.currentTimeMillis();
        String read = send(1, "GET", "/v0/entity?id=q&from=2&ack=2", null).body(); // repairs nothing
        if (System.currentTimeMillis() < before + 2_000) assertThat(read).isEqualTo("new");
        sleepUntil(stamped + 2_100);
        for (int n = 0; n < 3; n++) {
            assertThat(status(n, "GET", "/v0/entity?id=q&ack=3", null)).as("node %d", n).isEqualTo(404);
            assertThat(send(n, "GET", "/v0/entities?start=q&end=r&ack=3", null).body()).as("node %d", n).isEmpty();
        }
    }
}
