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
 * Three real nodes, one replica of a key missing its latest write (the write reached the others
 * only, through the internal protocol, so no hint can bring it): a quorum read that hears the
 * stale replica answers the newest version, and by the time it answers a quorum of the replicas
 * hold it, checked on each node's own store right after the answer, without waiting.
 */
class BlockingReadRepairTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final List<String> urls = new ArrayList<>();
    /** Each node's store, wrapped so a test can hold its writes. */
    final DelegatingStore[] stores = new DelegatingStore[3];
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (DelegatingStore s : stores) {
            if (s != null) s.open();
        }
        for (Node n : nodes) n.close();
    }

    void start() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        for (int p : ports) urls.add("http://localhost:" + p);
        for (int i = 0; i < 3; i++) {
            int n = i;
            nodes.add(Node.start(new NodeConfig(ports.get(i), dir.resolve("n" + i), urls.get(i), urls, 256,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES, NodeConfig.DEFAULT_MAX_HEADER_BYTES,
                    Duration.ofSeconds(2), false, 1 << 20, null, 0, NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults()),
                    c -> stores[n] = new DelegatingStore(NodeWiring.openStore(c)), NodeWiring::startCluster));
        }
    }

    HttpResponse<String> send(int node, String method, String pathAndQuery, String body, String... headers) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(urls.get(node) + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20));
        if (headers.length > 0) r.headers(headers);
        return client.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Node indexes in {@code key}'s placement order. */
    List<Integer> order(String key) {
        return new Placement(urls).replicas(key.getBytes(StandardCharsets.UTF_8), 3).stream().map(urls::indexOf).toList();
    }

    /** Writes {@code value} to every node but {@code missing}, as a coordinator would, with a current timestamp. */
    void writeMissing(String key, String value, int missing) throws Exception {
        String ts = Long.toString(System.currentTimeMillis() * 1_000);
        for (int n = 0; n < 3; n++) {
            if (n == missing) continue;
            assertThat(send(n, "PUT", "/internal/v0/entity?id=" + key, value, "X-Dht-Timestamp", ts).statusCode()).isEqualTo(201);
        }
    }

    String local(int node, String key) throws Exception {
        HttpResponse<String> r = send(node, "GET", "/internal/v0/entity?id=" + key, null);
        return r.statusCode() == 404 ? null : r.body();
    }

    @Test
    void aReadThatHearsTheStaleReplicaAnswersOnceAQuorumHoldsTheNewest() throws Exception {
        start();
        String key = "k";
        List<Integer> order = order(key);
        int first = order.get(0);
        int second = order.get(1);
        assertThat(send(0, "PUT", "/v0/entity?id=" + key + "&ack=3", "v1").statusCode()).isEqualTo(201);
        writeMissing(key, "v2", first);
        assertThat(local(first, key)).isEqualTo("v1");

        // from=2, ack=2: both of the key's first two replicas are heard, the stale one among them
        HttpResponse<String> r = send(order.get(2), "GET", "/v0/entity?id=" + key + "&ack=2&from=2", null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("v2");
        assertThat(local(first, key)).as("repaired before the answer").isEqualTo("v2");
        assertThat(local(second, key)).isEqualTo("v2");

        String status = send(order.get(2), "GET", "/v0/status", null).body();
        assertThat(status).contains("\"readRepairsSent\":1").contains("\"readRepairsTimedOut\":0");
    }

    @Test
    void aDefaultQuorumReadThroughTheStaleReplicaLeavesAQuorumHoldingWhatItAnswered() throws Exception {
        start();
        for (int i = 0; i < 20; i++) {
            String key = "key" + i;
            int stale = order(key).get(0); // before the holders: the copy rule lets it be repaired
            assertThat(send(0, "PUT", "/v0/entity?id=" + key + "&ack=3", "old").statusCode()).isEqualTo(201);
            writeMissing(key, "new", stale);

            HttpResponse<String> r = send(stale, "GET", "/v0/entity?id=" + key + "&ack=2", null);
            assertThat(r.body()).isEqualTo("new");
            int holding = 0;
            for (int n = 0; n < 3; n++) {
                if ("new".equals(local(n, key))) holding++;
            }
            assertThat(holding).as("copies of what %s answered", key).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void aDeleteTheStaleReplicaMissedIsRepairedBeforeTheAnswer() throws Exception {
        start();
        String key = "gone";
        List<Integer> order = order(key);
        int first = order.get(0);
        assertThat(send(0, "PUT", "/v0/entity?id=" + key + "&ack=3", "v1").statusCode()).isEqualTo(201);
        String ts = Long.toString(System.currentTimeMillis() * 1_000);
        assertThat(send(order.get(1), "DELETE", "/internal/v0/entity?id=" + key, null, "X-Dht-Timestamp", ts).statusCode())
                .isEqualTo(202);

        HttpResponse<String> r = send(first, "GET", "/v0/entity?id=" + key + "&ack=2&from=2", null);
        assertThat(r.statusCode()).isEqualTo(404);
        HttpResponse<String> copy = send(first, "GET", "/internal/v0/entity?id=" + key, null);
        assertThat(copy.headers().firstValue("X-Dht-Tombstone")).as("the stale value is gone").contains("1");
    }

    @Test
    void aRepairWriteThatTimesOutStillAnswersAndIsCounted() throws Exception {
        start();
        String key = "slow";
        List<Integer> order = order(key);
        int stale = order.get(0);
        assertThat(send(0, "PUT", "/v0/entity?id=" + key + "&ack=3", "v1").statusCode()).isEqualTo(201);
        writeMissing(key, "v2", stale);
        stores[stale].hold(); // its store takes no write: the repair of its own copy never completes

        long t0 = System.nanoTime();
        HttpResponse<String> r = send(stale, "GET", "/v0/entity?id=" + key + "&ack=2&from=2", null);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("v2");
        assertThat(millis).as("answered at the replica timeout").isGreaterThanOrEqualTo(1_900);
        String status = send(stale, "GET", "/v0/status", null).body();
        assertThat(status).contains("\"readRepairsTimedOut\":1");
        stores[stale].open();
    }
}
