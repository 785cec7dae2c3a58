package dht.node;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica that refuses for overload is up, unlike one that is down: the 504 it causes (the
 * contract's status for fewer than ack answers) carries Retry-After, so a client knows a retry a
 * moment later may succeed.
 */
class BusyReplicaTest {
    @TempDir
    Path dir;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private HttpServer busyPeer;
    /** Makes the peer answer as a node in graceful stop does: 503 marked as the stop's. */
    private volatile boolean peerStopping;
    private Node node;

    @AfterEach
    void stop() {
        if (node != null) node.close();
        if (busyPeer != null) busyPeer.stop(0);
    }

    /** A peer that answers every request as an overloaded node does: 503, Retry-After: 1. */
    private HttpServer busyPeer(int port) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress(port), 0);
        s.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = "overloaded: too many requests in flight\n".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Retry-After", "1");
            if (peerStopping) exchange.getResponseHeaders().set("X-Dht-Stopping", "1");
            exchange.sendResponseHeaders(503, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        s.start();
        return s;
    }

    private HttpResponse<String> send(String method, String query, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + node.port() + "/v0/entity?" + query))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aQuorumShortBecauseAReplicaIsBusyIs504WithRetryAfterAndOneShortBecauseItIsStoppingOrDownIsNot() throws Exception {
        int peerPort = TestPorts.free();
        NodeConfig own = TestNode.config(dir.resolve("n0"));
        // the peer first: a node that found its port closed would count it down, not busy, until its next probe
        busyPeer = busyPeer(peerPort);
        node = Node.start(TestNode.inCluster(own, List.of(own.self(), "http://localhost:" + peerPort)));

        for (String[] request : List.of(new String[] {"PUT", "v"}, new String[] {"GET", null}, new String[] {"DELETE", null})) {
            HttpResponse<String> r = send(request[0], "id=k&ack=2", request[1]);
            assertThat(r.statusCode()).as(request[0]).isEqualTo(504);
            assertThat(r.headers().firstValue("Retry-After")).as(request[0]).hasValue("1");
            assertThat(r.body()).as(request[0]).contains("refused for overload");
        }
        assertThat(send("PUT", "id=k&ack=1", "v").statusCode()).as("this node's own copy is enough for ack=1").isEqualTo(201);

        peerStopping = true; // its port closes within seconds: a retry would not find it up
        HttpResponse<String> stopping = send("PUT", "id=k&ack=2", "w");
        assertThat(stopping.statusCode()).isEqualTo(504);
        assertThat(stopping.headers().firstValue("Retry-After")).isEmpty();
        assertThat(stopping.body()).isEqualTo("not enough replicas answered\n");

        busyPeer.stop(0);
        busyPeer = null;
        HttpResponse<String> down = send("PUT", "id=k&ack=2", "w");
        assertThat(down.statusCode()).isEqualTo(504);
        assertThat(down.headers().firstValue("Retry-After")).isEmpty();
        assertThat(down.body()).isEqualTo("not enough replicas answered\n");
    }
}
