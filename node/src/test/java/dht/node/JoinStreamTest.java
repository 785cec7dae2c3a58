package dht.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dht.node.cluster.JoinStreamKeys;
import dht.node.cluster.Membership;
import dht.node.cluster.Placement;
import dht.testkit.TestPorts;
import dht.testkit.ThreadScheduling;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
 * A fourth node joins three real nodes in-process (three copies of each key): the members send it
 * only the keys it gains, each once (by the replica it displaces), so the joiner receives exactly
 * what it keeps; and the join stream's parameters are checked on the members' internal route. A
 * member shows {@code rebalancing} while it sends a join stream, and not once the stream ends or
 * its reader goes away; it sends each on a thread of its own, at the priority it was given.
 */
class JoinStreamTest {
    static final int KEYS = 600;
    /**
     * Keys and value of a cluster whose join stream outgrows what the kernel and the channel can
     * buffer between a member and a reader that takes nothing (a loopback send buffer grows to
     * tcp_wmem's 4 MiB, the channel's high water mark is 64 KiB), so the member is still sending
     * when the test looks: a member's share is 10-12 MB (a 0.7 MB stream once fitted whole).
     */
    static final int LARGE_KEYS = 480;
    static final String LARGE_VALUE = "w".repeat(100_000);

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private static NodeConfig config(int port, Path data, List<String> cluster, String join) {
        return InProcessNodeConfigs.of(port, data, cluster, 0, join);
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long field(String status, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(-?[0-9]+)").matcher(status);
        assertThat(m.find()).as(name + " in " + status).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void eachMemberSendsTheJoinerOnlyTheKeysItGainsEachOnce() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 3; i++) nodes.add(Node.start(config(ports.get(i), dir.resolve("n" + i), urls, null)));
        String value = "v".repeat(200);
        for (int k = 0; k < KEYS; k++) {
            // every copy written before the join starts, so each member holds every key; a
            // replica slow past the timeout on a busy machine is asked again
            int code = 0;
            for (int attempt = 0; attempt < 5 && code != 201; attempt++) {
                code = send(urls.get(k % 3), "PUT", "/v0/entity?id=key" + k + "&ack=3", value + k).statusCode();
            }
            assertThat(code).as("PUT key%d", k).isEqualTo(201);
        }

        String member = urls.get(0);
        assertThat(send(member, "GET", "/internal/v0/entities?joiner=http://localhost:1&version=1", null).statusCode())
                .as("no one joins in version 1").isEqualTo(409);
        assertThat(send(member, "GET", "/internal/v0/entities?joiner=http://localhost:1", null).statusCode())
                .as("a joiner without a version").isEqualTo(400);
        assertThat(send(member, "GET", "/internal/v0/entities?joiner=http://localhost:1&version=x", null).statusCode())
                .isEqualTo(400);

        int port = TestPorts.free();
        String joiner = "http://localhost:" + port;
        nodes.add(Node.start(config(port, dir.resolve("n3"), List.of(joiner), member)));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String status = send(joiner, "GET", "/v0/status", null).body();
        while (!status.contains("\"joining\":[]") && System.nanoTime() < deadline) {
            Thread.sleep(100);
            status = send(joiner, "GET", "/v0/status", null).body();
        }
        assertThat(status).contains("\"membershipVersion\":3", "\"joining\":[]");

        List<String> owners = new ArrayList<>(urls);
        owners.add(joiner);
        Placement after = new Placement(owners);
        int gained = 0;
        for (int k = 0; k < KEYS; k++) {
            if (after.replicas(("key" + k).getBytes(StandardCharsets.UTF_8), 3).contains(joiner)) gained++;
        }
        assertThat(field(status, "keysMoved")).as("keys written from the streams: each gained key once").isEqualTo(gained);
        assertThat(field(status, "bytesScanned")).as("bytes received: only what the joiner keeps")
                .isEqualTo(field(status, "bytesMoved"));
        assertThat(send(member, "GET", "/internal/v0/entities?joiner=" + joiner + "&version=2", null).statusCode())
                .as("the join is over: version 3").isEqualTo(409);
        for (int k = 0; k < KEYS; k += 17) {
            assertThat(send(joiner, "GET", "/v0/entity?id=key" + k, null).body()).isEqualTo(value + k);
        }
    }

    private void writeEveryCopy(List<String> urls, int keys, String value) throws Exception {
        for (int k = 0; k < keys; k++) {
            // every copy written, so each member holds every key; a replica slow past the timeout
            // on a busy machine is asked again
            int code = 0;
            for (int attempt = 0; attempt < 5 && code != 201; attempt++) {
                code = send(urls.get(k % urls.size()), "PUT", "/v0/entity?id=key" + k + "&ack=3", value + k).statusCode();
            }
            assertThat(code).as("PUT key%d", k).isEqualTo(201);
        }
    }

    @Test
    void aMemberShowsRebalancingWhileItSendsAJoinStreamAndNotOnceItEnds() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 3; i++) nodes.add(Node.start(config(ports.get(i), dir.resolve("n" + i), urls, null)));
        int keys = LARGE_KEYS;
        String value = LARGE_VALUE;
        writeEveryCopy(urls, keys, value);
        String member = urls.get(0);
        // The joiner is never started: the test reads the member's join stream itself.
        String joiner = "http://localhost:" + TestPorts.free();
        HttpResponse<String> joined = send(urls.get(1), "POST", "/internal/v0/membership?op=join&url=" + joiner, "");
        assertThat(joined.statusCode()).as(joined.body()).isEqualTo(200);
        Membership m = Membership.decode(joined.body());
        JoinStreamKeys sent = JoinStreamKeys.of(m, member, joiner);
        long expectedKeys = 0;
        long expectedBytes = 0;
        for (int k = 0; k < keys; k++) {
            byte[] key = ("key" + k).getBytes(StandardCharsets.UTF_8);
            if (!sent.sends(key)) continue;
            expectedKeys++;
            expectedBytes += key.length + (value + k).length() + 24;
        }
        assertThat(expectedBytes).as("the stream outgrows the socket buffers").isGreaterThan(6_000_000L);
        String stream = "/internal/v0/entities?joiner=" + joiner + "&version=" + m.version();
        String status = send(member, "GET", "/v0/status", null).body();
        assertThat(status).contains("\"rebalancing\":false");
        assertThat(field(status, "keysMoved")).isZero();

        // A reader that takes the head and nothing more, far less than the stream (about
        // expectedBytes): the member's stream stays open, and it shows it.
        try (RawHttp slow = new RawHttp(ports.get(0), 4096)) {
            slow.send("GET " + stream + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
            assertThat(slow.line()).startsWith("HTTP/1.1 200");
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (field(status = send(member, "GET", "/v0/status", null).body(), "keysMoved") == 0
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(status).as("while %d bytes wait to be sent", expectedBytes).contains("\"rebalancing\":true");
            assertThat(field(status, "keysMoved")).isBetween(1L, expectedKeys - 1);
            assertThat(field(status, "bytesScanned")).isPositive();
            assertThat(field(status, "totalBytes")).isPositive();
        }
        // The reader went away: the stream ends at the member, and so does its rebalancing.
        status = awaitNotRebalancing(member);
        long keysBefore = field(status, "keysMoved");
        long bytesBefore = field(status, "bytesMoved");

        HttpResponse<byte[]> whole = http.send(HttpRequest.newBuilder(URI.create(member + stream))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(whole.statusCode()).isEqualTo(200);
        status = awaitNotRebalancing(member);
        assertThat(field(status, "keysMoved") - keysBefore).as("keys sent by a whole stream").isEqualTo(expectedKeys);
        assertThat(field(status, "bytesMoved") - bytesBefore).as("bytes sent by a whole stream").isEqualTo(expectedBytes);
        assertThat(field(status, "etaMillis")).isZero();
    }

    @Test
    void aMemberSendsEachJoinStreamOnAThreadOfItsOwnAtTheSendPriority() throws Exception {
        assumeTrue(ThreadScheduling.available(), "needs Linux's /proc");
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        Tuning low = WithProperty.with(JvmSettings.JOIN_STREAM_PRIORITY, "low", JvmSettings::read);
        nodes.add(Node.start(config(ports.get(0), dir.resolve("n0"), urls, null).withTuning(low)));
        for (int i = 1; i < 3; i++) nodes.add(Node.start(config(ports.get(i), dir.resolve("n" + i), urls, null)));
        writeEveryCopy(urls, LARGE_KEYS, LARGE_VALUE); // the sender blocks: see LARGE_KEYS
        String joiner = "http://localhost:" + TestPorts.free();
        HttpResponse<String> joined = send(urls.get(1), "POST", "/internal/v0/membership?op=join&url=" + joiner, "");
        assertThat(joined.statusCode()).as(joined.body()).isEqualTo(200);
        long version = Membership.decode(joined.body()).version();
        assertThat(joinSenders()).as("before any join stream").isEmpty();

        // A reader that takes the head only holds the stream, and its sender, open.
        try (RawHttp slow = new RawHttp(ports.get(0), 4096)) {
            slow.send("GET /internal/v0/entities?joiner=" + joiner + "&version=" + version
                    + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
            assertThat(slow.line()).startsWith("HTTP/1.1 200");
            assertThat(joinSenders()).as("policy and nice of the member's join stream senders")
                    .containsExactly("0 19");
        }
        // The reader went away: the stream ends, and its thread with it.
        awaitNotRebalancing(urls.get(0));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!joinSenders().isEmpty() && System.nanoTime() < deadline) Thread.sleep(50);
        assertThat(joinSenders()).as("senders left once the stream ended").isEmpty();
    }

    /** "policy nice" of each live thread of this process named for a join stream's sender. */
    private static List<String> joinSenders() throws IOException {
        return ThreadScheduling.ofThreadsNamed("join-send-");
    }

    private String awaitNotRebalancing(String url) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        String status = send(url, "GET", "/v0/status", null).body();
        while (!status.contains("\"rebalancing\":false") && System.nanoTime() < deadline) {
            Thread.sleep(50);
            status = send(url, "GET", "/v0/status", null).body();
        }
        assertThat(status).contains("\"rebalancing\":false");
        return status;
    }
}
