package dht.node;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.Placement;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /v0/entity?...&repair=all} on three real nodes in-process: which replicas it writes
 * (checked in each node's own data, {@code /internal/v0/entities}, tombstones included), its
 * {@code X-Dht-Repair} counts, and that an ordinary GET still sends no value past the last holder.
 */
class RepairAllTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    List<String> urls;

    @BeforeEach
    void start() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 3; i++) {
            nodes.add(Node.start(new NodeConfig(ports.get(i), dir.resolve("n" + i), urls.get(i), urls, 256,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES,
                    NodeConfig.DEFAULT_MAX_HEADER_BYTES, Duration.ofMillis(500), false, 1 << 20, null, 0,
                    NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults(), NodeConfig.DEFAULT_COMPRESSION)));
        }
    }

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    /** The key's replicas in placement order, as indexes into {@link #nodes}. */
    List<Integer> order(String key) {
        return new Placement(urls).order(key.getBytes(StandardCharsets.UTF_8)).stream().map(urls::indexOf).toList();
    }

    HttpResponse<String> send(int node, String method, String pathAndQuery, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(urls.get(node) + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build();
        return client.send(r, HttpResponse.BodyHandlers.ofString());
    }

    static String id(String key) {
        return "/v0/entity?id=" + URLEncoder.encode(key, StandardCharsets.UTF_8);
    }

    /**
     * What node {@code n} holds of {@code key} on its own: "value:V", "tombstone" or "none", read
     * from its internal range stream (wire-format.md: flags, timestamp, expiry word, key, value).
     */
    String held(int n, String key) throws Exception {
        String k = URLEncoder.encode(key, StandardCharsets.UTF_8);
        HttpRequest r = HttpRequest.newBuilder(URI.create(urls.get(n) + "/internal/v0/entities?start=" + k + "&end=" + k + "%00"))
                .timeout(Duration.ofSeconds(20)).build();
        HttpResponse<byte[]> answer = client.send(r, HttpResponse.BodyHandlers.ofByteArray());
        byte[] body = answer.body();
        assertThat(answer.statusCode()).as(new String(body, StandardCharsets.UTF_8)).isEqualTo(200);
        if (body.length == 0) return "none";
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(body);
        byte flags = b.get();
        b.getLong();
        if ((flags & 2) != 0) b.getLong(); // an expiry word: the write's copies, here
        int keyLength = b.getInt();
        b.position(b.position() + keyLength);
        byte[] value = new byte[b.getInt()];
        b.get(value);
        return (flags & 1) != 0 ? "tombstone" : "value:" + new String(value, StandardCharsets.UTF_8);
    }

    @Test
    void aValueWrittenOnceReachesEveryReplicaOfFromAndTheHeaderCountsTheWrites() throws Exception {
        String key = "one-copy";
        List<Integer> o = order(key);
        assertThat(send(o.get(2), "PUT", id(key) + "&ack=1&from=1", "v").statusCode()).isEqualTo(201);
        assertThat(held(o.get(1), key)).isEqualTo("none");

        HttpResponse<String> r = send(o.get(1), "GET", id(key) + "&from=3&repair=all", null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("v");
        assertThat(r.headers().firstValue("x-dht-repair")).hasValue("sent=2 failed=0 unreachable=0");
        for (int n = 0; n < 3; n++) assertThat(held(n, key)).as("node %d", n).isEqualTo("value:v");

        HttpResponse<String> again = send(o.get(0), "GET", id(key) + "&from=3&repair=all", null);
        assertThat(again.headers().firstValue("x-dht-repair")).as("nothing left to do").hasValue("sent=0 failed=0 unreachable=0");
        assertThat(send(0, "GET", "/v0/status", null).body()).contains("\"fullRepairKeys\":");
    }

    @Test
    void fromLimitsTheCopiesARepairMakes() throws Exception {
        String key = "two-copies";
        List<Integer> o = order(key);
        assertThat(send(o.get(0), "PUT", id(key) + "&ack=1&from=1", "v").statusCode()).isEqualTo(201);
        HttpResponse<String> r = send(o.get(2), "GET", id(key) + "&from=2&repair=all", null);
        assertThat(r.headers().firstValue("x-dht-repair")).hasValue("sent=1 failed=0 unreachable=0");
        assertThat(held(o.get(1), key)).isEqualTo("value:v");
        assertThat(held(o.get(2), key)).as("outside from=2").isEqualTo("none");
    }

    @Test
    void aTombstoneReachesAStaleValueButNotAReplicaHoldingNothing() throws Exception {
        String key = "deleted";
        List<Integer> o = order(key);
        assertThat(send(o.get(0), "PUT", id(key) + "&ack=2&from=2", "old").statusCode()).isEqualTo(201);
        assertThat(send(o.get(0), "DELETE", id(key) + "&ack=1&from=1", null).statusCode()).isEqualTo(202);
        assertThat(held(o.get(1), key)).isEqualTo("value:old");

        HttpResponse<String> r = send(o.get(2), "GET", id(key) + "&from=3&repair=all", null);
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.headers().firstValue("x-dht-repair")).hasValue("sent=1 failed=0 unreachable=0");
        assertThat(held(o.get(0), key)).isEqualTo("tombstone");
        assertThat(held(o.get(1), key)).isEqualTo("tombstone");
        assertThat(held(o.get(2), key)).as("nothing to bring back").isEqualTo("none");
    }

    @Test
    void anOrdinaryGetStillSendsNoValuePastTheLastHolder() throws Exception {
        String key = "ordinary";
        List<Integer> o = order(key);
        assertThat(send(o.get(0), "PUT", id(key) + "&ack=1&from=1", "v").statusCode()).isEqualTo(201);
        HttpResponse<String> r = send(o.get(1), "GET", id(key) + "&ack=3&from=3", null);
        assertThat(r.body()).isEqualTo("v");
        assertThat(r.headers().firstValue("x-dht-repair")).isEmpty();
        Thread.sleep(300); // let any repair that would happen land
        assertThat(held(o.get(1), key)).isEqualTo("none");
        assertThat(held(o.get(2), key)).isEqualTo("none");
    }

    @Test
    void aReplicaDownIsCountedUnreachableAndTheAnswerIs504UnlessAckIsLower() throws Exception {
        String key = "one-down";
        List<Integer> o = order(key);
        assertThat(send(o.get(0), "PUT", id(key) + "&ack=1&from=1", "v").statusCode()).isEqualTo(201);
        nodes.get(o.get(2)).close();

        HttpResponse<String> r = send(o.get(0), "GET", id(key) + "&from=3&repair=all", null);
        assertThat(r.statusCode()).as("ack defaults to from").isEqualTo(504);
        assertThat(r.headers().firstValue("x-dht-repair")).hasValue("sent=1 failed=0 unreachable=1");
        assertThat(held(o.get(1), key)).as("the replicas that answered are repaired all the same").isEqualTo("value:v");

        HttpResponse<String> withAck = send(o.get(1), "GET", id(key) + "&from=3&ack=2&repair=all", null);
        assertThat(withAck.statusCode()).isEqualTo(200);
        assertThat(withAck.headers().firstValue("x-dht-repair")).hasValue("sent=0 failed=0 unreachable=1");
    }

    @Test
    void badRepairRequestsAre400() throws Exception {
        assertThat(send(0, "GET", "/v0/entity?id=k&repair=some", null).statusCode()).isEqualTo(400);
        assertThat(send(0, "GET", "/v0/entity?id=k&repair=", null).statusCode()).isEqualTo(400);
        assertThat(send(0, "PUT", "/v0/entity?id=k&repair=all", "v").statusCode()).isEqualTo(400);
        assertThat(send(0, "DELETE", "/v0/entity?id=k&repair=all", null).statusCode()).isEqualTo(400);
        assertThat(send(0, "GET", "/v0/entity?id=k&repair=all&from=4", null).statusCode()).isEqualTo(400);
        assertThat(send(0, "GET", "/v0/entity?id=k&repair=all&from=2&ack=3", null).statusCode()).isEqualTo(400);
        assertThat(send(0, "GET", "/v0/entity?repair=all", null).statusCode()).isEqualTo(400);
        assertThat(send(0, "GET", "/v0/entity?id=k&repair=all&repair=all", null).statusCode()).isEqualTo(400);
        HttpResponse<String> absent = send(0, "GET", "/v0/entity?id=nobody&repair=all", null);
        assertThat(absent.statusCode()).isEqualTo(404);
        assertThat(absent.headers().firstValue("x-dht-repair")).hasValue("sent=0 failed=0 unreachable=0");
    }
}
