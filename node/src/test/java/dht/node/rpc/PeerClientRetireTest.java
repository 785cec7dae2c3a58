package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dht.node.cluster.TestLoops;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A peer that is no longer in the cluster is not probed any more; added again, it is. */
class PeerClientRetireTest {
    private HttpServer peer;
    private EventLoopGroup loops;
    private PeerClient client;
    private final AtomicInteger probes = new AtomicInteger();

    @AfterEach
    void stop() throws Exception {
        TestLoops.stop(client, loops);
        peer.stop(0);
    }

    private static void sleepPastIdleProbes() throws InterruptedException {
        Thread.sleep(FailureDetector.IDLE_PROBE_AFTER.toMillis() * 5 / 2);
    }

    @Test
    void aRetiredPeerIsNotProbedUntilItIsAddedAgain() throws Exception {
        peer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        peer.createContext("/", exchange -> {
            if (exchange.getRequestURI().getPath().equals(InternalProtocol.PROBE_PATH)) probes.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        peer.start();
        String peerUrl = "http://127.0.0.1:" + peer.getAddress().getPort();
        loops = TestLoops.start(1);
        client = new PeerClient("http://127.0.0.1:1", List.of("http://127.0.0.1:1", peerUrl), Duration.ofSeconds(2), loops);

        sleepPastIdleProbes();
        assertThat(probes.get()).as("a quiet peer is probed").isPositive();

        client.retirePeer(peerUrl);
        Thread.sleep(300); // a probe already under way
        int atRetirement = probes.get();
        sleepPastIdleProbes();
        assertThat(probes.get()).as("no probe once retired").isEqualTo(atRetirement);

        client.addPeer(peerUrl);
        sleepPastIdleProbes();
        assertThat(probes.get()).as("probed again once added").isGreaterThan(atRetirement);
    }
}
