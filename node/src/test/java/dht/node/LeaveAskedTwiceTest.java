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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leave asked again while it runs (the first call timed out at the client, as {@code bin/dht
 * leave --timeout} does) is the same leave: the data is pushed once, and both calls are answered
 * with the version without the node. Before, the second ran a push of its own, and the node,
 * stopping once the first was done, never answered it.
 */
class LeaveAskedTwiceTest {
    static final int KEYS = 1_200;
    static final String PAD = "w".repeat(5_000);

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private HttpRequest request(String url, String method, String pathAndQuery, String body) {
        return HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(60)).build();
    }

    private long field(String url, String name) throws Exception {
        String status = http.send(request(url, "GET", "/v0/status", null), HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("\"" + name + "\":(-?[0-9]+)").matcher(status);
        assertThat(m.find()).as(name).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void aLeaveAskedAgainWhileItRunsPushesOnceAndAnswersBoth() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 4; i++) nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(i), dir.resolve("n" + i), urls, 3, null)));
        for (int k = 0; k < KEYS; k++) {
            HttpResponse<String> r = http.send(request(urls.get(k % 4), "PUT", "/v0/entity?id=key" + k + "&ack=3", PAD),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(201);
        }
        String leaving = urls.get(0);
        Placement before = new Placement(urls);
        long held = 0;
        for (int k = 0; k < KEYS; k++) {
            if (before.replicas(("key" + k).getBytes(StandardCharsets.UTF_8), 3).contains(leaving)) held++;
        }

        String leave = "/internal/v0/membership?op=leave&url=" + leaving;
        CompletableFuture<HttpResponse<String>> first = http.sendAsync(request(leaving, "POST", leave, ""),
                HttpResponse.BodyHandlers.ofString());
        // at once: the push of about 4.5 MB takes a fraction of a second here, and the second call
        // must come while it runs (after it, the node is no member: 404)
        CompletableFuture<HttpResponse<String>> second = http.sendAsync(request(leaving, "POST", leave, ""),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> a = first.get(90, TimeUnit.SECONDS);
        HttpResponse<String> b = second.get(90, TimeUnit.SECONDS);
        assertThat(a.statusCode()).as(a.body()).isEqualTo(200);
        assertThat(b.statusCode()).as(b.body()).isEqualTo(200);
        assertThat(b.body()).isEqualTo(a.body());
        assertThat(field(leaving, "keysMoved")).as("each key it held pushed once, to the one node that gains it")
                .isEqualTo(held);
    }
}
