package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dht.node.cluster.TestLoops;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The peer client on shared event loops: a call made on one of the loops is sent and answered on
 * that loop (no hand-off between threads), calls from other threads still work, and closing the
 * client leaves the loops it was lent running.
 */
class PeerClientLaneTest {
    private HttpServer peer;
    private EventLoopGroup loops;
    private PeerClient client;
    private String peerUrl;

    @BeforeEach
    void start() throws Exception {
        peer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        peer.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set(ClusterSecret.ANSWER_HEADER, MemberAnswer.UNSIGNED);
            exchange.sendResponseHeaders(200, 2);
            exchange.getResponseBody().write("ok".getBytes());
            exchange.close();
        });
        peer.start();
        peerUrl = "http://127.0.0.1:" + peer.getAddress().getPort();
        loops = TestLoops.start(2);
        client = new PeerClient("http://127.0.0.1:1", List.of("http://127.0.0.1:1", peerUrl),
                Duration.ofSeconds(2), loops);
    }

    @AfterEach
    void stop() throws Exception {
        TestLoops.stop(client, loops);
        peer.stop(0);
    }

    @Test
    void aCallMadeOnALoopIsAnsweredOnThatLoop() throws Exception {
        for (EventExecutor e : loops) {
            EventLoop loop = (EventLoop) e;
            for (int i = 0; i < 5; i++) {
                CompletableFuture<Boolean> sameThread = new CompletableFuture<>();
                loop.execute(() -> {
                    Thread caller = Thread.currentThread();
                    client.send(peerUrl, HttpMethod.GET, "/x", null, new byte[0]).whenComplete((r, err) -> {
                        if (err != null) sameThread.completeExceptionally(err);
                        else sameThread.complete(r.status() == 200 && Thread.currentThread() == caller);
                    });
                });
                assertThat(sameThread.get(5, TimeUnit.SECONDS)).as("answered with 200 on the caller's loop").isTrue();
            }
        }
    }

    @Test
    void callsFromOtherThreadsAreSpreadOverTheLoopsAndSucceed() throws Exception {
        for (int i = 0; i < 10; i++) {
            PeerResponse r = client.send(peerUrl, HttpMethod.PUT, "/x", null, "v".getBytes()).get(5, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(200);
            assertThat(new String(r.body())).isEqualTo("ok");
        }
    }

    @Test
    void closingTheClientLeavesTheLentLoopsRunning() {
        client.close();
        assertThat(loops.isShuttingDown()).isFalse();
    }
}
