package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dht.node.cluster.MembershipFile;
import dht.node.rpc.ClusterSecret;
import dht.testkit.TestPorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
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
    final InProcessMembers cluster = new InProcessMembers(3);
    HttpServer relay;

    @AfterEach
    void stop() {
        if (relay != null) relay.stop(0);
        cluster.close();
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
                    cluster.send(member, "POST", pathAndQuery, null);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            return;
        }
        try {
            HttpResponse<String> r = cluster.send(member, exchange.getRequestMethod(), pathAndQuery, null);
            byte[] body = r.body().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            r.headers().firstValue(ClusterSecret.ANSWER_HEADER)
                    .ifPresent(v -> exchange.getResponseHeaders().set(ClusterSecret.ANSWER_HEADER, v));
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
        List<String> urls = cluster.urls;
        cluster.startAll(i -> InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), urls, 0, null));
        cluster.write(60, k -> "v" + k);
        int port = TestPorts.free();
        String joiner = "http://localhost:" + port;
        Path data = dir.resolve("n3");
        cluster.nodes.add(Node.start(InProcessNodeConfigs.of(port, data, List.of(joiner), 0, startRelay(urls.get(1)))));

        assertThat(cluster.statusOnceJoined(Duration.ofSeconds(60), joiner)).contains("\"membershipVersion\":3", "\"joining\":[]");
        assertThat(data.resolve(MembershipFile.JOIN_ASKED)).doesNotExist();
        for (String member : urls) {
            assertThat(cluster.send(member, "GET", "/v0/status", null).body()).contains("\"membershipVersion\":3", "\"joining\":[]");
        }
        for (int k = 0; k < 60; k += 7) {
            assertThat(cluster.send(joiner, "GET", "/v0/entity?id=key" + k, null).body()).isEqualTo("v" + k);
        }
    }
}
