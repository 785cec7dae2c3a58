package dht.node;

import dht.testkit.TestPorts;
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
        return configs(NodeConfig.DEFAULT_MAX_BODY_BYTES);
    }

    List<NodeConfig> configs(int maxBody) throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        List<NodeConfig> out = new ArrayList<>();
        // A replica timeout of 2 s, not 500 ms: no test here waits for one (a stopped node refuses at
        // once), and on a loaded 2-core machine a healthy peer's answer took longer than 500 ms.
        for (int i = 0; i < 3; i++) {
            out.add(new NodeConfig(ports.get(i), dir.resolve("n" + i), urls.get(i), urls, 256,
                    maxBody, NodeConfig.DEFAULT_MAX_URI_BYTES,
                    NodeConfig.DEFAULT_MAX_HEADER_BYTES, Duration.ofSeconds(2), false, 1 << 20, null, 0,
                    NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults(), NodeConfig.DEFAULT_COMPRESSION));
        }
        return out;
    }

    HttpResponse<String> send(int node, String method, String pathAndQuery, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(node).port() + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build();
        return client.send(r, HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A value large enough to be borrowed from request buffers (the client's PUT on the coordinator,
     * the replica batch on each peer) is stored byte for byte on every replica.
     */
    @Test
    void aLargeValueIsStoredWholeOnEveryReplica() throws Exception {
        for (NodeConfig c : configs()) nodes.add(Node.start(c));
        byte[] big = new byte[400_000];
        new java.util.Random(11).nextBytes(big);
        for (int round = 0; round < 3; round++) {
            HttpRequest put = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(round).port()
                    + "/v0/entity?id=big" + round + "&ack=3&from=3")).PUT(HttpRequest.BodyPublishers.ofByteArray(big))
                    .timeout(Duration.ofSeconds(20)).build();
            assertThat(client.send(put, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(201);
            for (Node n : nodes) {
                // the internal read asks that node's own store alone
                HttpRequest get = HttpRequest.newBuilder(URI.create("http://localhost:" + n.port() + "/internal/v0/entity?id=big" + round))
                        .timeout(Duration.ofSeconds(20)).build();
                HttpResponse<byte[]> r = client.send(get, HttpResponse.BodyHandlers.ofByteArray());
                assertThat(r.statusCode()).as("big%d on %d", round, n.port()).isEqualTo(200);
                assertThat(r.body()).as("big%d on %d", round, n.port()).isEqualTo(big);
            }
        }
    }

    /** A scan reads every node whatever 'from' says, but 'ack' larger than a given 'from' is a 400 there too. */
    @Test
    void aScanRefusesAnAckLargerThanItsFrom() throws Exception {
        for (NodeConfig c : configs()) nodes.add(Node.start(c));
        HttpResponse<String> bad = send(0, "GET", "/v0/entities?start=a&ack=2&from=1", null);
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body().strip()).isEqualTo("'ack' (2) is larger than 'from' (1)");
        assertThat(send(0, "GET", "/v0/entities?start=a&ack=1&from=1", null).statusCode()).isEqualTo(200);
        assertThat(send(0, "GET", "/v0/entities?start=a&from=1", null).statusCode()).isEqualTo(200);
        assertThat(send(0, "GET", "/v0/entities?start=a&ack=3&from=3", null).statusCode()).isEqualTo(200);
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

    /**
     * A scan without {@code scope} covers the cluster: keys written with {@code from=1} live on one
     * node each, yet every node's scan returns all of them; {@code scope=local} returns a node's own.
     */
    @Test
    void aScanCoversTheClusterByDefault() throws Exception {
        for (NodeConfig c : configs()) nodes.add(Node.start(c));
        for (int i = 0; i < 12; i++) {
            assertThat(send(i % 3, "PUT", "/v0/entity?id=s" + (char) ('a' + i) + "&from=1&ack=1", "v" + i).statusCode()).isEqualTo(201);
        }
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 12; i++) all.append("s").append((char) ('a' + i)).append('\n').append("v").append(i);
        int localTotal = 0;
        for (int n = 0; n < 3; n++) {
            HttpResponse<String> scan = send(n, "GET", "/v0/entities?start=s", null);
            assertThat(scan.statusCode()).isEqualTo(200);
            assertThat(scan.headers().firstValue("transfer-encoding")).hasValue("chunked");
            assertThat(scan.body()).as("node %d", n).isEqualTo(all.toString());
            String local = send(n, "GET", "/v0/entities?start=s&scope=local", null).body();
            localTotal += local.isEmpty() ? 0 : local.split("(?=s[a-l]\n)").length;
        }
        assertThat(localTotal).isEqualTo(12); // each key on exactly one node: from=1 stores one copy
        HttpResponse<String> empty = send(1, "GET", "/v0/entities?start=sz&end=sa", null);
        assertThat(empty.statusCode()).isEqualTo(200);
        assertThat(empty.headers().firstValue("transfer-encoding")).hasValue("chunked");
        assertThat(empty.body()).isEmpty();
    }

    /**
     * A key whose public request line fits the limit takes up to three times as much once the
     * coordinator percent-encodes it for a replica: the replicas must still take it.
     */
    @Test
    void aLongKeyOfReservedCharactersReachesEveryReplica() throws Exception {
        for (NodeConfig c : configs()) nodes.add(Node.start(c));
        String key = "/".repeat(NodeConfig.DEFAULT_MAX_URI_BYTES - 64); // sent raw: '/' is legal in a query
        assertThat(send(0, "PUT", "/v0/entity?id=" + key + "&ack=3", "long").statusCode()).isEqualTo(201);
        for (int n = 0; n < 3; n++) {
            HttpResponse<String> r = send(n, "GET", "/v0/entity?id=" + key + "&ack=3", null);
            assertThat(r.statusCode()).as("node %d", n).isEqualTo(200);
            assertThat(r.body()).isEqualTo("long");
        }
    }

    /**
     * --max-body limits what a client may send, not the batches peers send each other: a batch of
     * many small writes (or reads) is larger than a small --max-body, and refusing it with 413 would
     * fail every write in it on that replica.
     */
    @Test
    void batchesBetweenNodesAreNotHeldToTheClientBodyLimit() throws Exception {
        int maxBody = 64;
        for (NodeConfig c : configs(maxBody)) nodes.add(Node.start(c));
        int n = 200;
        // Writes on one connection run one at a time (a write is a barrier for the requests after
        // it), so writes meet in one batch only from many connections at once.
        List<RawHttp> clients = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) clients.add(new RawHttp(nodes.get(0).port()));
            for (int i = 0; i < n; i++) {
                String v = "value-" + i;
                clients.get(i).send("PUT /v0/entity?id=p" + i + "&ack=3&from=3 HTTP/1.1\r\nHost: x\r\nContent-Length: "
                        + v.length() + "\r\n\r\n" + v);
            }
            for (int i = 0; i < n; i++) assertThat(clients.get(i).read().status()).as("PUT p%d", i).isEqualTo(201);
        } finally {
            for (RawHttp c : clients) c.close();
        }
        try (RawHttp raw = new RawHttp(nodes.get(0).port())) {
            StringBuilder gets = new StringBuilder();
            for (int i = 0; i < n; i++) gets.append("GET /v0/entity?id=p").append(i).append("&ack=3&from=3 HTTP/1.1\r\nHost: x\r\n\r\n");
            raw.send(gets.toString());
            for (int i = 0; i < n; i++) {
                RawHttp.Response r = raw.read();
                assertThat(r.status()).as("GET p%d", i).isEqualTo(200);
                assertThat(r.text()).isEqualTo("value-" + i);
            }
        }
        // A client's body over the limit is still refused.
        assertThat(send(1, "PUT", "/v0/entity?id=big", "x".repeat(maxBody + 1)).statusCode()).isEqualTo(413);
    }

    /**
     * Many requests pipelined on one connection arrive in one read, so the coordinator's replica
     * calls to each peer travel in batches (POST /internal/v0/batch): every write and read must
     * still get its own answer.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"reads", "all"})
    void pipelinedRequestsWhoseReplicaCallsTravelInBatchesEachGetTheirOwnAnswer(String batching) throws Exception {
        System.setProperty("dht.peer.batch", batching); // read once, when each node starts
        try {
            for (NodeConfig c : configs()) nodes.add(Node.start(c));
        } finally {
            System.clearProperty("dht.peer.batch");
        }
        int n = 200;
        try (RawHttp raw = new RawHttp(nodes.get(0).port())) {
            StringBuilder puts = new StringBuilder();
            for (int i = 0; i < n; i++) {
                String v = "value-" + i;
                puts.append("PUT /v0/entity?id=p").append(i).append("&ack=3&from=3 HTTP/1.1\r\nHost: x\r\nContent-Length: ")
                        .append(v.length()).append("\r\n\r\n").append(v);
            }
            raw.send(puts.toString());
            for (int i = 0; i < n; i++) assertThat(raw.read().status()).as("PUT p%d", i).isEqualTo(201);
        }
        try (RawHttp raw = new RawHttp(nodes.get(1).port())) {
            StringBuilder deletes = new StringBuilder();
            for (int i = 0; i < n; i += 10) {
                deletes.append("DELETE /v0/entity?id=p").append(i).append("&ack=3&from=3 HTTP/1.1\r\nHost: x\r\n\r\n");
            }
            raw.send(deletes.toString());
            for (int i = 0; i < n; i += 10) assertThat(raw.read().status()).as("DELETE p%d", i).isEqualTo(202);
            StringBuilder gets = new StringBuilder();
            for (int i = 0; i < n; i++) {
                gets.append("GET /v0/entity?id=p").append(i).append("&ack=3&from=3 HTTP/1.1\r\nHost: x\r\n\r\n");
            }
            raw.send(gets.toString());
            for (int i = 0; i < n; i++) {
                RawHttp.Response r = raw.read();
                if (i % 10 == 0) {
                    assertThat(r.status()).as("GET p%d after its delete", i).isEqualTo(404);
                } else {
                    assertThat(r.status()).as("GET p%d", i).isEqualTo(200);
                    assertThat(r.text()).isEqualTo("value-" + i);
                }
            }
        }
        // A third coordinator, one request at a time (no batches), sees the same.
        for (int i = 1; i < n; i += 10) {
            assertThat(send(2, "GET", "/v0/entity?id=p" + i + "&ack=3&from=3", null).body()).isEqualTo("value-" + i);
        }
    }

    /** The batch endpoint reads the whole batch before applying any of it: a malformed one changes nothing. */
    @Test
    void aMalformedBatchIsRejectedAndChangesNothing() throws Exception {
        for (NodeConfig c : configs()) nodes.add(Node.start(c));
        byte[] key = "batched".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] value = "v".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        // Two operations as docs/wire-format.md describes them: a PUT, then a GET of the same key.
        long now = System.currentTimeMillis() * 1_000; // a timestamp further ahead would be refused
        java.nio.ByteBuffer good = java.nio.ByteBuffer.allocate(4 + 1 + 4 + key.length + 8 + 8 + 4 + value.length + 1 + 4 + key.length);
        good.putInt(2).put((byte) 2).putInt(key.length).put(key).putLong(now).putLong(0).putInt(value.length).put(value)
                .put((byte) 1).putInt(key.length).put(key);
        byte[] truncated = java.util.Arrays.copyOf(good.array(), good.capacity() - 3);
        try (RawHttp raw = new RawHttp(nodes.get(0).port())) {
            raw.send(("POST /internal/v0/batch HTTP/1.1\r\nHost: x\r\nContent-Length: " + truncated.length + "\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            raw.send(truncated);
            RawHttp.Response r = raw.read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.text()).contains("malformed batch");
        }
        assertThat(send(0, "GET", "/v0/entity?id=batched&ack=1&from=3", null).statusCode()).isEqualTo(404);
        try (RawHttp raw = new RawHttp(nodes.get(0).port())) {
            raw.send(("POST /internal/v0/batch HTTP/1.1\r\nHost: x\r\nContent-Length: " + good.capacity() + "\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            raw.send(good.array());
            RawHttp.Response r = raw.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("X-Dht-Clock")).isNotNull();
            java.nio.ByteBuffer answer = java.nio.ByteBuffer.wrap(r.body());
            assertThat(answer.getInt()).isEqualTo(2);
            assertThat(answer.get()).as("written").isEqualTo((byte) 4);
            assertThat(answer.get()).as("found").isEqualTo((byte) 1);
            assertThat(answer.getLong()).isEqualTo(now);
            assertThat(answer.getLong()).as("no expiry").isZero();
            assertThat(answer.getInt()).isEqualTo(1);
            assertThat(answer.get()).isEqualTo((byte) 'v');
            assertThat(answer.hasRemaining()).isFalse();
        }
    }
}
