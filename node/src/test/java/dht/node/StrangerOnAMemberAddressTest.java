package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dht.testkit.TestPorts;
import java.io.IOException;
import java.net.InetSocketAddress;
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
 * Two in-process nodes without a cluster secret, and on the third member's address a web server
 * that is no node at all (as {@code python3 -m http.server}: {@code 404} with an HTML page to every
 * GET, {@code 501} to anything else). Its {@code 404} is not "no version here": it is no replica,
 * so a read asking three replicas fails, and the members see it down (a black-box tester's
 * finding: before, its 404 counted as the third answer and the status showed it up).
 */
class StrangerOnAMemberAddressTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    HttpServer stranger;
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
        if (stranger != null) stranger.stop(0);
    }

    @Test
    void aWebServerOnAMemberAddressIsNoReplica() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        stranger = HttpServer.create(new InetSocketAddress("localhost", ports.get(2)), 0);
        stranger.createContext("/", StrangerOnAMemberAddressTest::answerAsAWebServer);
        stranger.start();
        for (int i = 0; i < 2; i++) {
            nodes.add(Node.start(new NodeConfig(ports.get(i), dir.resolve("n" + i), urls.get(i), urls, 256,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES,
                    NodeConfig.DEFAULT_MAX_HEADER_BYTES, Duration.ofSeconds(2), false, 1 << 20, null, 0,
                    NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults())));
        }
        assertThat(send(0, "PUT", "/v0/entity?id=k&ack=2", "real").statusCode()).isEqualTo(201);
        for (int i = 0; i < 4; i++) {
            HttpResponse<String> read = send(i % 2, "GET", "/v0/entity?id=k", null);
            assertThat(read.body()).as("a quorum read through a member").isEqualTo("real");
            assertThat(send(i % 2, "GET", "/v0/entity?id=k&ack=3", null).statusCode())
                    .as("three answers asked: the web server's 404 is none").isEqualTo(504);
            assertThat(send(i % 2, "GET", "/v0/entity?id=absent&ack=3", null).statusCode())
                    .as("nor for a key no member has").isEqualTo(504);
        }
        for (int i = 0; i < 2; i++) {
            assertThat(send(i, "GET", "/v0/status", null).body()).as("node %d", i).contains("\"" + urls.get(2) + "\":\"down\"");
        }
    }

    private static void answerAsAWebServer(HttpExchange ex) throws IOException {
        ex.getRequestBody().readAllBytes();
        boolean get = ex.getRequestMethod().equals("GET");
        byte[] body = ("<html><body><h1>Error response</h1><p>" + (get ? "File not found" : "Unsupported method")
                + "</p></body></html>").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/html;charset=utf-8");
        ex.sendResponseHeaders(get ? 404 : 501, body.length);
        ex.getResponseBody().write(body);
        ex.close();
    }

    private HttpResponse<String> send(int node, String method, String uri, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(node).port() + uri))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build();
        return client.send(r, HttpResponse.BodyHandlers.ofString());
    }
}
