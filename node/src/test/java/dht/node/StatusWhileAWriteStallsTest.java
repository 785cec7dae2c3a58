package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.Membership;
import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's status answers at once while one of its store writes stalls across a membership
 * change. The stalled write holds the anti-entropy trees' gate; moving the trees to the new
 * version waits for it, and the status, made on an event loop, used to make that move itself: it
 * (and every request on its loop) waited as long as the write did.
 */
class StatusWhileAWriteStallsTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    DelegatingStore held;

    @AfterEach
    void stop() {
        if (held != null) held.open();
        for (Node n : nodes) n.close();
    }

    private HttpRequest request(String url, String method, String pathAndQuery, String body, Duration timeout) {
        return HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(timeout).build();
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery, String body) throws Exception {
        return http.send(request(url, method, pathAndQuery, body, Duration.ofSeconds(20)), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theStatusAnswersWhileAStoreWriteStallsAcrossAMembershipChange() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        String a = urls.get(0);
        nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(0), dir.resolve("a"), urls, 2, null),
                c -> held = new DelegatingStore(NodeWiring.openStore(c)), NodeWiring::startCluster));
        for (int i = 1; i < 3; i++) nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(i), dir.resolve("n" + i), urls, 2, null)));
        assertThat(send(a, "GET", "/v0/status", null).statusCode()).as("the trees follow version 1").isEqualTo(200);

        held.entered.drainPermits();
        held.hold();
        CompletableFuture<HttpResponse<String>> put = http.sendAsync(request(a, "PUT", "/v0/entity?id=k&ack=1&from=3", "v",
                Duration.ofSeconds(30)), HttpResponse.BodyHandlers.ofString());
        assertThat(held.entered.tryAcquire(10, TimeUnit.SECONDS)).as("a write stalls in the store").isTrue();
        Membership v1 = Membership.decode(send(a, "GET", "/internal/v0/membership?op=get", null).body());
        Membership v2 = v1.withLeaving(urls.get(2));
        assertThat(send(a, "POST", "/internal/v0/membership?op=commit&id=status-test", v2.encode()).statusCode()).isEqualTo(200);

        HttpResponse<String> status = http.send(request(a, "GET", "/v0/status", null, Duration.ofSeconds(3)),
                HttpResponse.BodyHandlers.ofString());
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains("\"membershipVersion\":2");
        held.open();
        assertThat(put.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    }
}
