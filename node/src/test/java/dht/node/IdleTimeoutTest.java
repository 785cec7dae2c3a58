package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connection with nothing to do for the idle timeout (2 s here) is closed, silently: one left
 * open after its last answer, and one whose head arrives a byte at a time, which bytes alone do
 * not keep open. A connection that keeps sending requests, or a request body, stays open.
 */
class IdleTimeoutTest {
    private static final String STATUS = "GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n";

    @TempDir
    Path dir;

    @Test
    void aConnectionLeftIdleIsClosedWithoutAWordAfterTheTimeout() throws Exception {
        try (TestNode node = start(); RawHttp c = new RawHttp(node.node.port())) {
            assertThat(exchange(c, STATUS).status()).isEqualTo(200);
            long t0 = System.nanoTime();
            c.socket.setSoTimeout(10_000);
            byte[] rest = c.in.readAllBytes(); // until the node closes it
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertThat(rest).isEmpty();
            assertThat(seconds).isBetween(1.9, 6.0);
            try (RawHttp other = new RawHttp(node.node.port())) {
                String metrics = exchange(other, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").text();
                assertThat(metrics).contains("dht_http_connections_idle_closed_total 1.0");
            }
        }
    }

    @Test
    void aHeadSentAByteAtATimeDoesNotKeepItsConnectionOpen() throws Exception {
        try (TestNode node = start(); RawHttp c = new RawHttp(node.node.port())) {
            String head = "GET /v0/entity?id=slow HTTP/1.1\r\nHost: x\r\nX-Pad: " + "a".repeat(200);
            long t0 = System.nanoTime();
            boolean closed = false;
            for (int i = 0; i < head.length() && !closed; i++) {
                try {
                    c.send(head.substring(i, i + 1));
                } catch (IOException e) {
                    closed = true;
                    break;
                }
                c.socket.setSoTimeout(50);
                closed = endOfStream(c);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertThat(closed).as("closed while the head was still arriving").isTrue();
            assertThat(seconds).isBetween(1.9, 8.0);
        }
    }

    @Test
    void requestsAndABodyInProgressKeepAConnectionOpen() throws Exception {
        try (TestNode node = start(); RawHttp c = new RawHttp(node.node.port())) {
            long t0 = System.nanoTime();
            while (System.nanoTime() - t0 < 4_000_000_000L) { // twice the timeout, a request every 0.5 s
                assertThat(exchange(c, STATUS).status()).isEqualTo(200);
                Thread.sleep(500);
            }
            // A body sent a byte every 0.4 s for 4 s: the body timeout (30 s) is its limit, not this one.
            String body = "0123456789";
            c.send("PUT /v0/entity?id=k HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length() + "\r\n\r\n");
            for (char ch : body.toCharArray()) {
                Thread.sleep(400);
                c.send(String.valueOf(ch));
            }
            assertThat(c.read().status()).isEqualTo(201);
            assertThat(exchange(c, "GET /v0/entity?id=k HTTP/1.1\r\nHost: x\r\n\r\n").text()).isEqualTo(body);
        }
    }

    private TestNode start() throws Exception {
        return WithProperty.with(JvmSettings.IDLE_TIMEOUT, "2",
                () -> TestNode.start(TestNode.config(dir).withTuning(JvmSettings.read()), s -> s));
    }

    /** Whether the node closed the connection (nothing arrives within the socket's timeout: no). */
    private static boolean endOfStream(RawHttp c) throws IOException {
        try {
            return c.in.read() == -1;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (java.net.SocketException e) {
            return true; // reset
        }
    }

    private static RawHttp.Response exchange(RawHttp c, String request) throws Exception {
        c.send(request);
        return c.read();
    }
}
