package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dht_peer_up} has a row for each peer of the current membership: a node that joins gets
 * one (and reads 1 once seen up), a node that leaves loses it rather than reading 0 for ever. The
 * rows were fixed at start: a joiner was never shown, and a member that left stayed "down". The
 * series of calls to a peer ({@code dht_peer_calls_*}) leave with it too.
 */
class PeerUpMetricFollowsMembershipTest {
    @TempDir
    Path dir;
    final InProcessMembers cluster = new InProcessMembers(2);

    @AfterEach
    void stop() {
        cluster.close();
    }

    private String peerUp(String url, String peer) throws Exception {
        String metrics = cluster.send(url, "GET", "/metrics", null).body();
        String row = "dht_peer_up{peer=\"" + peer + "\"} ";
        int at = metrics.indexOf(row);
        return at < 0 ? null : metrics.substring(at + row.length(), metrics.indexOf('\n', at)).trim();
    }

    /** What {@code read} gives once it gives {@code expected}, or its last answer after {@code wait}. */
    private static <T> T readUntil(Duration wait, T expected, java.util.concurrent.Callable<T> read) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        T v = read.call();
        while (!java.util.Objects.equals(v, expected) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            v = read.call();
        }
        return v;
    }

    private String peerUpAfter(Duration wait, String url, String peer, String expected) throws Exception {
        return readUntil(wait, expected, () -> peerUp(url, peer));
    }

    /** Whether {@code url}'s metrics have a {@code dht_peer_calls} series of calls to {@code peer}. */
    private boolean hasCallSeries(String url, String peer) throws Exception {
        String label = "peer=\"" + peer + "\"";
        return cluster.send(url, "GET", "/metrics", null).body().lines()
                .anyMatch(l -> l.startsWith("dht_peer_calls") && l.contains(label));
    }

    private boolean hasCallSeriesAfter(Duration wait, String url, String peer, boolean expected) throws Exception {
        return readUntil(wait, expected, () -> hasCallSeries(url, peer));
    }

    @Test
    void aJoinerGetsARowAndALeaverLosesIt() throws Exception {
        List<String> urls = cluster.urls;
        cluster.startAll(i -> InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), urls, 2, null));
        String first = urls.getFirst();
        assertThat(peerUpAfter(Duration.ofSeconds(10), first, urls.get(1), "1.0")).isEqualTo("1.0");

        int port = TestPorts.free();
        String joiner = "http://localhost:" + port;
        cluster.nodes.add(Node.start(InProcessNodeConfigs.of(port, dir.resolve("joiner"), List.of(joiner), 0, first)));
        assertThat(cluster.statusOnceJoined(Duration.ofSeconds(60), joiner)).contains("\"joining\":[]");
        assertThat(peerUpAfter(Duration.ofSeconds(10), first, joiner, "1.0")).as("the joiner's row").isEqualTo("1.0");
        assertThat(peerUp(joiner, first)).as("the joiner's own rows").isNotNull();
        assertThat(hasCallSeriesAfter(Duration.ofSeconds(10), first, joiner, true)).as("calls to the joiner").isTrue();

        HttpResponse<String> left = cluster.send(joiner, "POST", "/internal/v0/membership?op=leave&url=" + joiner, "");
        assertThat(left.statusCode()).as(left.body()).isEqualTo(200);
        assertThat(peerUpAfter(Duration.ofSeconds(10), first, joiner, null)).as("the row of a node that left").isNull();
        assertThat(hasCallSeriesAfter(Duration.ofSeconds(10), first, joiner, false)).as("calls to a node that left").isFalse();
        assertThat(hasCallSeries(first, urls.get(1))).as("calls to a member").isTrue();
        assertThat(peerUp(first, urls.get(1))).isEqualTo("1.0");
    }

    @Test
    void aNodeStillJoiningHasARowAsInTheStatus() throws Exception {
        List<String> urls = cluster.urls;
        cluster.startAll(i -> InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), urls, 2, null));
        String joiner = "http://localhost:" + TestPorts.free();
        // Agreed as joining, and never started: pending, down, and taking writes (hinted) all the same.
        HttpResponse<String> agreed = cluster.send(urls.get(1), "POST", "/internal/v0/membership?op=join&url=" + joiner, "");
        assertThat(agreed.statusCode()).as(agreed.body()).isEqualTo(200);
        assertThat(cluster.send(urls.getFirst(), "GET", "/v0/status", null).body()).contains("\"" + joiner + "\":\"");
        assertThat(peerUpAfter(Duration.ofSeconds(10), urls.getFirst(), joiner, "0.0")).isEqualTo("0.0");
    }
}
