package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.rpc.ClusterSecret;
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
 * Three in-process nodes with a cluster secret: internal requests without its proof are refused
 * before routing and change nothing; a node with another secret gets no replica traffic.
 */
class ClusterSecretTest {
    static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    static final byte[] OTHER = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    void start(byte[]... secrets) throws Exception {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < secrets.length; i++) ports.add(TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < secrets.length; i++) {
            nodes.add(Node.start(new NodeConfig(ports.get(i), dir.resolve("n" + i), urls.get(i), urls, 256,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES,
                    NodeConfig.DEFAULT_MAX_HEADER_BYTES, Duration.ofSeconds(2), false, 1 << 20, null, 0,
                    NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults()).withClusterSecret(new ClusterSecret(secrets[i]))));
        }
    }

    HttpResponse<String> send(int node, String method, String uri, String body, String auth, String writeTimestamp)
            throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(node).port() + uri))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20));
        if (auth != null) r.header(ClusterSecret.HEADER, auth);
        if (writeTimestamp != null) r.header("X-Dht-Timestamp", writeTimestamp);
        return client.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String sign(byte[] secret, String method, String uri, String body, long millis) {
        return new ClusterSecret(secret).sign(method, uri, body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8), millis);
    }

    @Test
    void internalRequestsWithoutTheProofAreRefusedAndChangeNothing() throws Exception {
        start(SECRET, SECRET, SECRET);
        String uri = "/internal/v0/entity?id=k";
        String ts = Long.toString(System.currentTimeMillis() * 1000);
        long now = System.currentTimeMillis();
        assertThat(send(0, "PUT", uri, "forged", null, ts).statusCode()).isEqualTo(401);
        assertThat(send(0, "PUT", uri, "forged", "garbage", ts).statusCode()).isEqualTo(403);
        assertThat(send(0, "PUT", uri, "forged", sign(OTHER, "PUT", uri, "forged", now), ts).statusCode()).isEqualTo(403);
        // the right secret, but stale, or for another body or another key
        assertThat(send(0, "PUT", uri, "forged", signWrite(uri, "forged", ts, now - 60_000), ts).statusCode()).isEqualTo(403);
        assertThat(send(0, "PUT", uri, "forged", signWrite(uri, "other", ts, now), ts).statusCode()).isEqualTo(403);
        assertThat(send(0, "PUT", uri, "forged", signWrite(uri + "x", "forged", ts, now), ts).statusCode()).isEqualTo(403);
        // (each differs from a good proof in that alone: such a write's, fresh, is taken)
        String other = "/internal/v0/entity?id=0ther"; // before the cluster scan below
        assertThat(send(1, "PUT", other, "good", signWrite(other, "good", ts, now), ts).statusCode()).isEqualTo(201);
        assertThat(send(0, "DELETE", uri, null, null, ts).statusCode()).isEqualTo(401);
        assertThat(send(0, "POST", "/internal/v0/batch", "x", null, null).statusCode()).isEqualTo(401);
        assertThat(send(0, "GET", "/internal/v0/entities?start=a", null, null, null).statusCode()).isEqualTo(401);
        assertThat(send(0, "GET", "/internal/v0/nowhere", null, null, null).statusCode()).isEqualTo(401);
        // nothing changed: a signed read finds no key
        assertThat(send(0, "GET", uri, null, sign(SECRET, "GET", uri, null, System.currentTimeMillis()), null).statusCode())
                .isEqualTo(404);
        assertThat(send(0, "GET", "/v0/entity?id=k&ack=3", null, null, null).statusCode()).isEqualTo(404);

        // the peers prove it to each other: replication, reads and the cluster scan work
        assertThat(send(0, "PUT", "/v0/entity?id=k&ack=3", "v", null, null).statusCode()).isEqualTo(201);
        assertThat(send(2, "GET", "/v0/entity?id=k&ack=3", null, null, null).body()).isEqualTo("v");
        assertThat(send(1, "GET", "/v0/entities?start=a&ack=3", null, null, null).body()).isEqualTo("k\nv");
        assertThat(send(2, "GET", uri, null, sign(SECRET, "GET", uri, null, System.currentTimeMillis()), null).body())
                .isEqualTo("v");
        assertThat(send(0, "GET", "/v0/status", null, null, null).body()).contains("\"clusterSecret\":true");
    }

    @Test
    void aRequestWithTwoProofsIsRefusedWhicheverComesFirst() throws Exception {
        start(SECRET);
        String uri = "/internal/v0/entity?id=k";
        String ts = Long.toString(System.currentTimeMillis() * 1000);
        String good = signWrite(uri, "v", ts, System.currentTimeMillis());
        for (List<String> proofs : List.of(List.of(good, "garbage"), List.of("garbage", good), List.of(good, good))) {
            HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(0).port() + uri))
                    .PUT(HttpRequest.BodyPublishers.ofString("v")).header("X-Dht-Timestamp", ts);
            for (String p : proofs) r.header(ClusterSecret.HEADER, p);
            HttpResponse<String> answer = client.send(r.build(), HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as("%s", proofs).isEqualTo(403);
            assertThat(answer.body()).contains("more than one");
        }
        String read = "/internal/v0/entity?id=k";
        assertThat(send(0, "GET", read, null, sign(SECRET, "GET", read, null, System.currentTimeMillis()), null).statusCode())
                .as("nothing written").isEqualTo(404);
    }

    /** The proof of a replica write of {@code body} with the version {@code timestamp}, as a coordinator signs it. */
    static String signWrite(String uri, String body, String timestamp, long millis) {
        io.netty.handler.codec.http.DefaultHttpHeaders h = new io.netty.handler.codec.http.DefaultHttpHeaders();
        h.set("X-Dht-Timestamp", timestamp);
        return new ClusterSecret(SECRET).sign("PUT", uri, ClusterSecret.Headers.of(h), body.getBytes(StandardCharsets.UTF_8), millis);
    }

    /** A proof signed for one version: what a tester captured on the wire and replayed with the timestamp of now. */
    static String signDelete(String uri, String timestamp, long millis) {
        io.netty.handler.codec.http.DefaultHttpHeaders h = new io.netty.handler.codec.http.DefaultHttpHeaders();
        h.set("X-Dht-Timestamp", timestamp);
        return new ClusterSecret(SECRET).sign("DELETE", uri, ClusterSecret.Headers.of(h), new byte[0], millis);
    }

    @Test
    void aCapturedDeleteReplayedWithANewerTimestampIsRefused() throws Exception {
        start(SECRET, SECRET, SECRET);
        String uri = "/internal/v0/entity?id=k";
        String old = Long.toString((System.currentTimeMillis() - 60_000) * 1000);
        String proof = signDelete(uri, old, System.currentTimeMillis());
        assertThat(send(0, "DELETE", uri, null, proof, old).statusCode()).as("as captured").isEqualTo(202);
        assertThat(send(0, "PUT", "/v0/entity?id=k&ack=3", "newer", null, null).statusCode()).isEqualTo(201);
        String now = Long.toString(System.currentTimeMillis() * 1000);
        assertThat(send(0, "DELETE", uri, null, proof, now).statusCode()).as("replayed, timestamp raised").isEqualTo(403);
        assertThat(send(0, "GET", "/v0/entity?id=k&ack=3", null, null, null).body()).isEqualTo("newer");
    }

    @Test
    void aNodeWithAnotherSecretIsNoReplica() throws Exception {
        start(SECRET, SECRET, OTHER);
        assertThat(send(0, "PUT", "/v0/entity?id=a&ack=3", "v", null, null).statusCode()).isEqualTo(504);
        assertThat(send(0, "PUT", "/v0/entity?id=b&ack=2", "v", null, null).statusCode()).isEqualTo(201);
        assertThat(send(1, "GET", "/v0/entity?id=b&ack=2", null, null, null).body()).isEqualTo("v");
        // through the odd node nothing reaches a quorum
        assertThat(send(2, "PUT", "/v0/entity?id=c&ack=2", "v", null, null).statusCode()).isEqualTo(504);
        // it holds no copy of what the good pair wrote
        String uri = "/internal/v0/entity?id=b";
        assertThat(send(2, "GET", uri, null, sign(OTHER, "GET", uri, null, System.currentTimeMillis()), null).statusCode())
                .isEqualTo(404);
        // and the good pair counts it down
        String odd = "\"http://localhost:" + nodes.get(2).port() + "\":\"down\"";
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!send(0, "GET", "/v0/status", null, null, null).body().contains(odd) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(send(0, "GET", "/v0/status", null, null, null).body()).contains(odd);
    }
}
