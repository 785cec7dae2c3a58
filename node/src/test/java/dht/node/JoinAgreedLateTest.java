package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dht.node.cluster.MembershipFile;
import dht.testkit.TestPorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A join the member agrees on after the joiner's call has already failed: what a member does when
 * another member is frozen (it waits a call's timeout for that one's prepare, then goes on without
 * it) while the joiner's own call runs out at the same moment. The joiner joins through a relay
 * that drops the join call's connection at once and passes the call on to the member two seconds
 * later. The joiner asks the member what it agreed until it knows, and goes on with the join;
 * before, it looked once, gave up ("cannot join", exit 1), and the members kept a joiner that was
 * not there, refusing every other change.
 */
class JoinAgreedLateTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final List<String> urls = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpServer relay;

    @AfterEach
    void stop() {
        if (relay != null) relay.stop(0);
        for (Node n : nodes) n.close();
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, method.equals("PUT") ? HttpRequest.BodyPublishers.ofString("v") : HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Passes {@code op=get} on to {@code member}; drops {@code op=join} at once and sends it on two seconds later. */
    private String startRelay(String member) throws IOException {
        relay = HttpServer.create(new InetSocketAddress("localhost", TestPorts.free()), 0);
        relay.createContext("/", exchange -> relay(exchange, member));
        relay.start();
        return "http://localhost:" + relay.getAddress().getPort();
    }

    private void relay(HttpExchange exchange, String member) throws IOException {
        String pathAndQuery = exchange.getRequestURI().toString();
        if (pathAndQuery.contains("op=join")) {
            exchange.close(); // the joiner's call fails with no answer
            Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(2_000);
                    send(member, "POST", pathAndQuery);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            return;
        }
        try {
            HttpResponse<String> r = send(member, exchange.getRequestMethod(), pathAndQuery);
            byte[] body = r.body().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(r.statusCode(), body.length);
            exchange.getResponseBody().write(body);
        } catch (Exception e) {
            exchange.sendResponseHeaders(502, -1);
        } finally {
            exchange.close();
        }
    }

    @Test
    void aJoinerWhoseCallFailedGoesOnWithTheJoinTheMemberAgreesLater() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        for (int p : ports) urls.add("http://localhost:" + p);
        for (int i = 0; i < 3; i++) nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(i), dir.resolve("n" + i), urls, 0, null)));
        for (int k = 0; k < 60; k++) {
            assertThat(send(urls.get(k % 3), "PUT", "/v0/entity?id=key" + k + "&ack=3").statusCode()).isEqualTo(201);
        }
        int port = TestPorts.free();
        String joiner = "http://localhost:" + port;
        Path data = dir.resolve("n3");
        nodes.add(Node.start(InProcessNodeConfigs.of(port, data, List.of(joiner), 0, startRelay(urls.get(1)))));

        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String status = send(joiner, "GET", "/v0/status").body();
        while (!status.contains("\"joining\":[]") && System.nanoTime() < deadline) {
            Thread.sleep(100);
            status = send(joiner, "GET", "/v0/status").body();
        }
        assertThat(status).contains("\"membershipVersion\":3", "\"joining\":[]");
        assertThat(data.resolve(MembershipFile.JOIN_ASKED)).doesNotExist();
        for (String member : urls) {
            assertThat(send(member, "GET", "/v0/status").body()).contains("\"membershipVersion\":3", "\"joining\":[]");
        }
        for (int k = 0; k < 60; k += 7) {
            assertThat(send(joiner, "GET", "/v0/entity?id=key" + k).statusCode()).isEqualTo(200);
        }
    }
}
