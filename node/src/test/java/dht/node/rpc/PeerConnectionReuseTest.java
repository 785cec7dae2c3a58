package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dht.node.cluster.TestLoops;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpMethod;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pooled connection to a peer is taken again while it has sat unused for less than the reuse
 * limit, and not after: the peer may be closing it for its idle timeout, and a call sent on it then
 * would fail. Told apart by the client port the peer sees.
 */
class PeerConnectionReuseTest {
    private HttpServer peer;
    private EventLoopGroup loops;
    private PeerClient client;
    private String peerUrl;
    private final List<Integer> clientPorts = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        peer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        peer.createContext("/", exchange -> {
            clientPorts.add(exchange.getRemoteAddress().getPort());
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, 2);
            exchange.getResponseBody().write("ok".getBytes());
            exchange.close();
        });
        peer.start();
        peerUrl = "http://127.0.0.1:" + peer.getAddress().getPort();
        loops = TestLoops.start(1); // one lane: every call takes from the same pool
        client = new PeerClient("http://127.0.0.1:1", List.of("http://127.0.0.1:1", peerUrl), Duration.ofSeconds(2),
                loops, PeerCallMeter.NONE, null, null, Duration.ofMillis(400));
    }

    @AfterEach
    void stop() throws Exception {
        TestLoops.stop(client, loops);
        peer.stop(0);
    }

    @Test
    void aConnectionUnusedPastTheLimitIsNotTakenAgain() throws Exception {
        call();
        call();
        assertThat(clientPorts.get(1)).as("taken again at once").isEqualTo(clientPorts.get(0));
        Thread.sleep(1_000);
        call();
        assertThat(clientPorts.get(2)).as("a new connection after 1 s unused").isNotEqualTo(clientPorts.get(1));
        call();
        assertThat(clientPorts.get(3)).isEqualTo(clientPorts.get(2));
    }

    private void call() throws Exception {
        PeerResponse r = client.send(peerUrl, HttpMethod.GET, "/x", null, new byte[0]).get(5, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(200);
    }
}
