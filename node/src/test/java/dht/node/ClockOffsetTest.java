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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real nodes: a timestamp too far ahead of a node's clock is refused by the replica endpoint
 * and by a coordinator reading it back, and moves no clock, so the nodes' own writes keep their order.
 */
class ClockOffsetTest {
    static final long HOUR_MICROS = 3_600_000_000L;

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    void start(Duration... offsets) throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 3; i++) {
            nodes.add(Node.start(new NodeConfig(ports.get(i), dir.resolve("n" + i), urls.get(i), urls, 256,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES, NodeConfig.DEFAULT_MAX_HEADER_BYTES,
                    Duration.ofSeconds(2), false, 1 << 20, null, 0, NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults(),
                    offsets[i])));
        }
    }

    HttpResponse<String> send(int node, String method, String pathAndQuery, String body, String... headers) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(node).port() + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20));
        if (headers.length > 0) r.headers(headers);
        return client.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    static long nowMicros() {
        return System.currentTimeMillis() * 1_000;
    }

    static long field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(-?\\d+)").matcher(json);
        assertThat(m.find()).as("%s in %s", name, json).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void anInternalWriteFromTheFutureIsRefusedAndTheNodesWritesKeepTheirOrder() throws Exception {
        start(Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofMillis(500));
        assertThat(send(0, "PUT", "/v0/entity?id=k", "v1").statusCode()).isEqualTo(201);
        for (long ts : new long[] {Long.MAX_VALUE, nowMicros() + HOUR_MICROS}) {
            HttpResponse<String> r = send(1, "PUT", "/internal/v0/entity?id=k", "evil", "X-Dht-Timestamp", Long.toString(ts));
            assertThat(r.statusCode()).isEqualTo(409);
            assertThat(r.headers().firstValue("X-Dht-Clock-Refused")).isPresent();
            assertThat(r.body()).contains("ahead");
            assertThat(Long.parseLong(r.headers().firstValue("X-Dht-Clock").orElseThrow()))
                    .as("the clock did not move").isLessThan(nowMicros() + 1_000_000);
        }
        assertThat(send(1, "DELETE", "/internal/v0/entity?id=k", null, "X-Dht-Timestamp", Long.toString(Long.MAX_VALUE))
                .statusCode()).isEqualTo(409);

        // The node's own writes after it: a PUT is visible, a DELETE after it deletes, through every node.
        assertThat(send(1, "PUT", "/v0/entity?id=k", "v2").statusCode()).isEqualTo(201);
        for (int n = 0; n < 3; n++) {
            HttpResponse<String> r = send(n, "GET", "/v0/entity?id=k&ack=3", null);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("v2");
            assertThat(send(n, "GET", "/internal/v0/entity?id=k", null).body()).as("node %d's own copy", n).isEqualTo("v2");
        }
        assertThat(send(1, "DELETE", "/v0/entity?id=k", null).statusCode()).isEqualTo(202);
        for (int n = 0; n < 3; n++) {
            assertThat(send(n, "GET", "/v0/entity?id=k&ack=3", null).statusCode()).isEqualTo(404);
        }

        String status = send(1, "GET", "/v0/status", null).body();
        assertThat(field(status, "timestampsRefused")).isEqualTo(3);
        assertThat(field(status, "clockBehindPeersMillis")).isGreaterThan(3_000_000);
        assertThat(field(status, "maxClockOffsetMillis")).isEqualTo(500);
        for (int n : new int[] {0, 2}) {
            String other = send(n, "GET", "/v0/status", null).body();
            assertThat(field(other, "timestampsRefused")).as("node %d: nothing spread to it", n).isZero();
            assertThat(field(other, "clockBehindPeersMillis")).isZero();
        }
    }

    @Test
    void aBatchedWriteFromTheFutureFailsAloneAndChangesNothing() throws Exception {
        start(Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofMillis(500));
        byte[] key = "b".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.nio.ByteBuffer batch = java.nio.ByteBuffer.allocate(2 * (1 + 4 + key.length + 8 + 8 + 4 + 1) + 4);
        batch.putInt(2);
        batch.put((byte) 2).putInt(key.length).put(key).putLong(nowMicros()).putLong(0).putInt(1).put((byte) 'a');
        batch.put((byte) 2).putInt(key.length).put(key).putLong(Long.MAX_VALUE).putLong(0).putInt(1).put((byte) 'z');
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(0).port() + "/internal/v0/batch"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(batch.array())).build();
        HttpResponse<byte[]> answer = client.send(r, HttpResponse.BodyHandlers.ofByteArray());
        assertThat(answer.statusCode()).isEqualTo(200);
        java.nio.ByteBuffer results = java.nio.ByteBuffer.wrap(answer.body());
        assertThat(results.getInt()).isEqualTo(2);
        assertThat(results.get()).as("written").isEqualTo((byte) 4);
        assertThat(results.get()).as("failed").isEqualTo((byte) 5);
        assertThat(send(0, "GET", "/internal/v0/entity?id=b", null).body()).isEqualTo("a");
    }

    @Test
    void aReadAnswerFromTheFutureCountsAsAFailedReplicaAndMovesNoClock() throws Exception {
        // Node 2 takes anything (a day of offset), so it stores a version an hour ahead; the others
        // must not take it from its read answers.
        start(Duration.ofMillis(500), Duration.ofMillis(500), Duration.ofDays(1));
        assertThat(send(0, "PUT", "/v0/entity?id=k", "now").statusCode()).isEqualTo(201);
        assertThat(send(2, "PUT", "/internal/v0/entity?id=k", "later", "X-Dht-Timestamp",
                Long.toString(nowMicros() + HOUR_MICROS)).statusCode()).isEqualTo(201);

        assertThat(send(0, "GET", "/v0/entity?id=k&ack=3", null).statusCode()).as("one of three failed").isEqualTo(504);
        HttpResponse<String> r = send(0, "GET", "/v0/entity?id=k&ack=2", null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("now");
        String status = send(0, "GET", "/v0/status", null).body();
        assertThat(field(status, "timestampsRefused")).isPositive();
        // ack=3: node 1 holds it when the PUT is answered (with 2 of 3 it may still be on its way)
        assertThat(send(0, "PUT", "/v0/entity?id=k2&ack=3", "x").statusCode()).isEqualTo(201);
        long ts = Long.parseLong(send(1, "GET", "/internal/v0/entity?id=k2", null).headers()
                .firstValue("X-Dht-Timestamp").orElseThrow());
        assertThat(ts).as("node 0 still stamps near physical time").isLessThan(nowMicros() + 1_000_000);
    }
}
