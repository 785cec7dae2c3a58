package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dht.testkit.TestPorts;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graceful stop drains a membership change in progress like a request in flight: its answer is
 * written before the connection closes. {@code bin/dht leave} depends on it, since a node stops as
 * soon as it has left, while the answer to the leave is still on its way out.
 */
class MembershipChangeStopTest {
    @TempDir
    Path dir;

    @Test
    void aChangeInProgressWhenTheStopBeginsIsAnsweredBeforeTheConnectionCloses() throws Exception {
        // The other member takes a second to refuse the change's prepare, so the change is still
        // in progress when the stop begins. Its other calls are refused at once.
        CountDownLatch asked = new CountDownLatch(1);
        HttpServer other = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
        other.createContext("/", ex -> {
            boolean prepare = ex.getRequestURI().toString().contains("op=prepare");
            if (prepare) {
                asked.countDown();
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] body = "busy".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(503, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        other.start();
        int port = TestPorts.free();
        String otherUrl = "http://localhost:" + other.getAddress().getPort();
        Node node = Node.start(InProcessNodeConfigs.of(port, dir, List.of("http://localhost:" + port, otherUrl), 1, null));
        try (RawHttp client = new RawHttp(port)) {
            client.send("POST /internal/v0/membership?op=join&url=http://localhost:1"
                    + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
            assertThat(asked.await(10, TimeUnit.SECONDS)).as("the change asked the other member").isTrue();

            CompletableFuture<Void> stop = CompletableFuture.runAsync(node::close);
            Thread.sleep(300);
            assertThat(stop).as("draining: the change in progress holds it").isNotDone();

            RawHttp.Response r = client.read();
            assertThat(r.status()).as("the change's own answer, not a closed connection").isEqualTo(503);
            assertThat(r.text()).as("the other member's reason").contains("busy");
            assertThat(r.header("x-dht-stopping")).as("refused by the other member, not by the stop").isNull();
            stop.get(10, TimeUnit.SECONDS);
        } finally {
            node.close();
            other.stop(0);
        }
    }
}
