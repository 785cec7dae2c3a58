package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dht.node.cluster.ScanSource;
import dht.node.cluster.TestLoops;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How long a peer's stream may take to answer: a client's scan waits the replica timeout for the
 * response head, a join stream (background work, restarted from its start when it fails) the idle
 * timeout, so a member busy with client traffic is not asked again and again.
 */
class PeerScanStreamTimeoutTest {
    private static final Duration REPLICA_TIMEOUT = Duration.ofMillis(400);
    private static final long ANSWER_AFTER_MS = 1_500;

    private HttpServer peer;
    private final ExecutorService answers = Executors.newCachedThreadPool();
    private EventLoopGroup loops;
    private PeerClient client;
    private String peerUrl;

    @BeforeEach
    void start() throws Exception {
        peer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        peer.setExecutor(answers);
        peer.createContext("/", exchange -> {
            try {
                Thread.sleep(ANSWER_AFTER_MS); // a member slow to start its stream: an empty one
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.getResponseHeaders().set(ClusterSecret.ANSWER_HEADER, MemberAnswer.UNSIGNED);
            exchange.sendResponseHeaders(200, 0);
            exchange.close();
        });
        peer.start();
        peerUrl = "http://127.0.0.1:" + peer.getAddress().getPort();
        loops = TestLoops.start(1);
        client = new PeerClient("http://127.0.0.1:1", List.of("http://127.0.0.1:1", peerUrl), REPLICA_TIMEOUT, loops);
    }

    @AfterEach
    void stop() throws Exception {
        TestLoops.stop(client, loops);
        peer.stop(0);
        answers.shutdownNow();
    }

    @Test
    void aScanFailsWhenItsAnswerTakesLongerThanTheReplicaTimeout() {
        try (ScanSource s = client.openScan(peerUrl, new byte[0], null, 10)) {
            assertThatThrownBy(s::hasNext).isInstanceOf(ScanSource.ScanSourceException.class)
                    .hasMessageContaining("did not answer within " + REPLICA_TIMEOUT.toMillis() + " ms");
        }
    }

    @Test
    void aJoinStreamWaitsTheIdleTimeoutForItsAnswer() {
        long start = System.nanoTime();
        try (ScanSource s = client.openJoinStream(peerUrl, new byte[0], "http://127.0.0.1:2", 2, null)) {
            assertThat(s.hasNext()).as("complete and empty").isFalse();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(REPLICA_TIMEOUT);
    }
}
