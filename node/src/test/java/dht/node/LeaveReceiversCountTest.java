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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The members that take in a leaving node's data count it in their status ({@code rebalance}
 * {@code keysMoved}, {@code bytesMoved}): each exactly the keys it gains. Before, a leave's pushes
 * were plain write batches, which a receiver could not tell from a coordinator's, and every
 * receiver reported {@code keysMoved} 0 while {@code rebalancing} was true.
 */
class LeaveReceiversCountTest {
    static final int KEYS = 600;

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(60)).build();
        return http.send(r, HttpResponse.BodyHandlers.ofString());
    }

    private long field(String url, String name) throws Exception {
        String status = send(url, "GET", "/v0/status", null).body();
        Matcher m = Pattern.compile("\"" + name + "\":(-?[0-9]+)").matcher(status);
        assertThat(m.find()).as(name + " in " + status).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void eachReceiverCountsTheKeysItGains() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 4; i++) nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(i), dir.resolve("n" + i), urls, 3, null)));
        for (int k = 0; k < KEYS; k++) {
            assertThat(send(urls.get(k % 4), "PUT", "/v0/entity?id=key" + k + "&ack=3", "v" + k).statusCode()).isEqualTo(201);
        }
        String leaving = urls.getFirst();
        List<String> staying = urls.subList(1, 4);
        Placement before = new Placement(urls);
        Placement after = new Placement(staying);

        HttpResponse<String> left = send(leaving, "POST", "/internal/v0/membership?op=leave&url=" + leaving, "");
        assertThat(left.statusCode()).as(left.body()).isEqualTo(200);

        long pushed = field(leaving, "keysMoved");
        assertThat(field(leaving, "keysMovedIn")).as("the leaving node took nothing in").isZero();
        long received = 0;
        for (String member : staying) {
            long gains = 0;
            for (int k = 0; k < KEYS; k++) {
                byte[] key = ("key" + k).getBytes(StandardCharsets.UTF_8);
                if (after.replicas(key, 3).contains(member) && !before.replicas(key, 3).contains(member)) gains++;
            }
            assertThat(gains).as("a member gains keys").isPositive();
            assertThat(field(member, "keysMoved")).as("keys %s counts as taken in", member).isEqualTo(gains);
            assertThat(field(member, "keysMovedIn")).as("of them, taken in").isEqualTo(gains);
            assertThat(field(member, "bytesMoved")).as("bytes %s counts", member).isPositive();
            received += gains;
        }
        assertThat(received).as("what the members took in is what the leaving node pushed").isEqualTo(pushed);
    }
}
