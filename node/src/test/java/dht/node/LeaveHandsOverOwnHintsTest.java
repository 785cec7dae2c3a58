package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.HintSettings;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real nodes in-process, three copies of each key, anti-entropy off: one member is stopped,
 * another coordinates writes (keeping hints for the stopped one) and then leaves. Its own hints
 * for the stopped member are handed over with the keys that member gains, so once back it holds
 * every key written while it was down, with no read and no anti-entropy to repair it. A member
 * that keeps such a hand-over, and leaves before it has delivered it, passes it on.
 */
class LeaveHandsOverOwnHintsTest {
    static final int KEYS = 120;

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private static NodeConfig config(int port, Path data, List<String> cluster) {
        return InProcessNodeConfigs.of(port, data, cluster, 3, null);
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

    /** The keys whose copy node {@code url}'s own store lacks. */
    private List<String> missing(String url) throws Exception {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            String key = "key" + k;
            HttpResponse<String> r = send(url, "GET", "/v0/entities?scope=local&start=" + key + "&end=" + key + "%00", null);
            assertThat(r.statusCode()).isEqualTo(200);
            if (!r.body().contains("value" + k)) out.add(key);
        }
        return out;
    }

    /** Waits until {@code url}'s own store holds every key, and says which it still lacks if not. */
    private void assertHoldsEveryKey(String url) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<String> lacking = missing(url);
        while (!lacking.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(200);
            lacking = missing(url);
        }
        assertThat(lacking).as("keys the member that was down still lacks").isEmpty();
    }

    @Test
    void aMemberKeepingAHandOverPassesItOnWhenItLeavesInTurn() throws Exception {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < 5; i++) ports.add(TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        // The first leave's keeper: the first of the members that stay, live, in the placement's (URL) order.
        int keeping = java.util.stream.IntStream.of(1, 2, 4).boxed()
                .min(java.util.Comparator.comparing(urls::get)).orElseThrow();
        for (int i = 0; i < 5; i++) {
            // The keeper delivers what it keeps for others one batch at a time, the next batch due
            // in hours: what it keeps stays there until it leaves.
            HintSettings hints = i == keeping ? new HintSettings(HintSettings.DEFAULT_WINDOW, HintSettings.DEFAULT_BYTES_PER_PEER, 1)
                    : HintSettings.DEFAULTS;
            nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(i), dir.resolve("n" + i), urls, 3, null, hints, 0)));
        }
        String keeper = urls.get(keeping);
        String down = urls.get(3);
        nodes.get(3).close();
        for (int k = 0; k < KEYS; k++) {
            assertThat(send(urls.get(0), "PUT", "/v0/entity?id=key" + k, "value" + k).statusCode()).isEqualTo(201);
        }
        HttpResponse<String> first = send(urls.get(0), "POST", "/internal/v0/membership?op=leave&url=" + urls.get(0), "");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        nodes.get(0).close();

        // The member comes back and takes the version it missed; the keeper has not delivered all
        // it keeps for it when it leaves in turn.
        nodes.set(3, Node.start(config(ports.get(3), dir.resolve("n3"), urls)));
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (field(down, "membershipVersion") < field(keeper, "membershipVersion") && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(field(down, "membershipVersion")).isEqualTo(field(keeper, "membershipVersion"));
        assertThat(field(keeper, "handOverHintsWaiting")).as("versions the keeper still keeps for the member").isPositive();
        HttpResponse<String> left = send(keeper, "POST", "/internal/v0/membership?op=leave&url=" + keeper, "");
        assertThat(left.statusCode()).as(left.body()).isEqualTo(200);
        nodes.get(keeping).close(); // what it kept would go with it
        // Three members are left, each to hold every key.
        assertHoldsEveryKey(down);
    }

    @Test
    void aLeavingNodeHandsOverItsOwnHintsForTheMemberThatIsDown() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 4; i++) nodes.add(Node.start(config(ports.get(i), dir.resolve("n" + i), urls)));
        String leaving = urls.get(0);
        String down = urls.get(3);
        nodes.get(3).close();

        Placement before = new Placement(urls);
        int hinted = 0;
        for (int k = 0; k < KEYS; k++) {
            String key = "key" + k;
            assertThat(send(leaving, "PUT", "/v0/entity?id=" + key, "value" + k).statusCode()).as(key).isEqualTo(201);
            if (before.replicas(key.getBytes(StandardCharsets.UTF_8), 3).contains(down)) hinted++;
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (field(leaving, "hintsWaiting") < hinted && System.nanoTime() < deadline) Thread.sleep(50);
        assertThat(field(leaving, "hintsWaiting")).as("the leaving node's hints for the member that is down")
                .isEqualTo(hinted);

        HttpResponse<String> left = send(leaving, "POST", "/internal/v0/membership?op=leave&url=" + leaving, "");
        assertThat(left.statusCode()).as(left.body()).isEqualTo(200);
        assertThat(left.body()).contains("laggard=" + down);
        nodes.get(0).close(); // its process would exit now, its hints with it
        // What the member gains from the leave, and what it missed while down: every key, as the
        // three that stay hold all of them.
        assertThat(field(urls.get(1), "handOverHintsHeld") + field(urls.get(2), "handOverHintsHeld"))
                .as("versions kept for the member that is down").isEqualTo(KEYS);

        nodes.set(3, Node.start(config(ports.get(3), dir.resolve("n3"), urls)));
        assertHoldsEveryKey(down);
    }
}
