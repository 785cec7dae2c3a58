package dht.node;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A request body that stops arriving gives back what it holds: it is answered 408 and its
 * connection closed once it has gone {@code --body-timeout} without a byte; a slow body that keeps
 * coming, and a head that is still arriving, are left alone.
 */
class StalledBodyTest {
    static final Duration TIMEOUT = Duration.ofMillis(500);
    static final int MAX_BODY = 4096;

    @TempDir
    static Path dir;
    static TestNode node;

    @BeforeAll
    static void start() throws Exception {
        NodeConfig c = TestNode.config(TestPorts.free(), dir, 64, MAX_BODY, 1024, 1024);
        node = TestNode.start(TestNode.withBodyTimeout(c, TIMEOUT), s -> s);
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    RawHttp connect() throws Exception {
        return new RawHttp(node.node.port());
    }

    static long bodyBytesHeld() throws Exception {
        return node.bodyBytesHeld();
    }

    @Test
    void aBodyThatStopsArrivingIs408AndGivesBackItsBudget() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=stalled HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + "s".repeat(40));
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (bodyBytesHeld() != 40 && System.nanoTime() < deadline) Thread.sleep(10);
            assertThat(bodyBytesHeld()).as("the partial body is held against the budget").isEqualTo(40);

            long t0 = System.nanoTime();
            RawHttp.Response r = c.read();
            long waitedMillis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(r.status()).isEqualTo(408);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(waitedMillis).isLessThan(5_000);
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(bodyBytesHeld()).isZero();
        assertThat(node.get("/v0/entity?id=stalled").statusCode()).as("nothing was stored").isEqualTo(404);
    }

    @Test
    void aSlowBodyThatKeepsComingIsStoredWhole() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=slow HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\n");
            // Six pieces 200 ms apart: 1.2 s in all, more than twice the timeout, never 500 ms silent.
            for (char ch : "abcdef".toCharArray()) {
                Thread.sleep(TIMEOUT.toMillis() * 2 / 5);
                c.send(String.valueOf(ch));
            }
            assertThat(c.read().status()).isEqualTo(201);
        }
        assertThat(new String(node.get("/v0/entity?id=slow").body(), StandardCharsets.UTF_8)).isEqualTo("abcdef");
    }

    @Test
    void aHeadStillArrivingIsNotTimedOut() throws Exception {
        try (RawHttp c = connect()) {
            c.send("GET /v0/sta");
            Thread.sleep(TIMEOUT.toMillis() * 3);
            c.send("tus HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
        }
    }

    @Test
    void anIdleKeepAliveConnectionStaysOpen() throws Exception {
        try (RawHttp c = connect()) {
            c.send(RawProtocolTest.put("idle", "v"));
            assertThat(c.read().status()).isEqualTo(201);
            Thread.sleep(TIMEOUT.toMillis() * 3);
            c.send(RawProtocolTest.get("/v0/entity?id=idle"));
            assertThat(c.read().text()).isEqualTo("v");
        }
    }

    @Test
    void theRestOfARefusedBodyStallingClosesTheConnectionAfterItsAnswer() throws Exception {
        try (RawHttp c = connect()) {
            c.send("PUT /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nContent-Length: " + (MAX_BODY + 100) + "\r\n\r\n"
                    + "b".repeat(100));
            assertThat(c.read().status()).isEqualTo(413);
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(bodyBytesHeld()).isZero();
    }
}
