package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.http.ConnectionLimit;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connections past the bound are answered 503 at once and closed, and the node keeps serving the
 * ones it has; a slot freed is taken by the next. Without the bound, thousands of clients each
 * holding most of a request head ran the heap out, and idle ones the file descriptors.
 */
class ConnectionLimitTest {
    @TempDir
    Path dir;

    @Test
    void pastTheBoundANewConnectionGets503AndTheOthersAreStillServed() throws Exception {
        try (TestNode node = WithProperty.with(JvmSettings.MAX_CONNECTIONS, "3",
                () -> TestNode.start(TestNode.config(dir).withTuning(JvmSettings.read()), s -> s))) {
            int port = node.node.port();
            List<RawHttp> held = new ArrayList<>();
            try {
                // Each is answered once (so it is surely counted: accepts are counted on two event
                // loops, not in connect order), then two sit inside a head.
                RawHttp first = new RawHttp(port);
                held.add(first);
                assertThat(exchange(first, STATUS).statusLine()).isEqualTo("HTTP/1.1 200 OK");
                for (int i = 0; i < 2; i++) {
                    RawHttp c = new RawHttp(port);
                    held.add(c);
                    assertThat(exchange(c, STATUS).statusLine()).isEqualTo("HTTP/1.1 200 OK");
                    c.send("GET /v0/entity?id=x HTTP/1.1\r\nHost: x\r\nX-Slow: ");
                }
                try (RawHttp extra = new RawHttp(port)) {
                    extra.socket.setSoTimeout(5_000);
                    String answer = new String(extra.in.readAllBytes(), StandardCharsets.US_ASCII);
                    assertThat(answer).startsWith("HTTP/1.1 503 Service Unavailable\r\n").contains("Retry-After: 1\r\n")
                            .contains("Connection: close\r\n").endsWith("too many connections (3 open); retry\n");
                }
                assertThat(exchange(first, STATUS).statusLine()).isEqualTo("HTTP/1.1 200 OK");

                held.remove(1).close(); // a half-sent head's slot is given back when it closes
                String answer = "";
                for (int i = 0; i < 50 && !answer.startsWith("HTTP/1.1 200"); i++) {
                    try (RawHttp next = new RawHttp(port)) {
                        answer = exchange(next, "GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").statusLine();
                    }
                    if (!answer.startsWith("HTTP/1.1 200")) Thread.sleep(20);
                }
                assertThat(answer).isEqualTo("HTTP/1.1 200 OK");
                String metrics = exchange(first, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").text();
                assertThat(metrics).contains("dht_http_connections_max 3.0").contains("dht_http_connections_refused_total ");
            } finally {
                for (RawHttp c : held) c.close();
            }
        }
    }

    /**
     * Refused connections hold descriptors too while their answer lingers: past an allowance
     * (16 here) they are closed at once without one, so a flood of connects cannot run the
     * descriptors out around the bound.
     */
    @Test
    void pastTheLingeringAllowanceARefusedConnectionIsClosedWithoutAnAnswer() throws Exception {
        try (TestNode node = WithProperty.with(JvmSettings.MAX_CONNECTIONS, "1",
                () -> TestNode.start(TestNode.config(dir).withTuning(JvmSettings.read()), s -> s));
             RawHttp held = new RawHttp(node.node.port())) {
            assertThat(exchange(held, STATUS).statusLine()).isEqualTo("HTTP/1.1 200 OK");
            List<RawHttp> refused = new ArrayList<>();
            try {
                for (int i = 0; i < 40; i++) refused.add(new RawHttp(node.node.port()));
                int answered = 0;
                int closedBare = 0;
                for (RawHttp c : refused) {
                    c.socket.setSoTimeout(10_000);
                    String answer = new String(c.in.readAllBytes(), StandardCharsets.US_ASCII);
                    if (answer.isEmpty()) closedBare++;
                    else if (answer.startsWith("HTTP/1.1 503 ")) answered++;
                    else throw new AssertionError("unexpected answer: " + answer);
                }
                assertThat(answered).isBetween(1, 39);
                assertThat(closedBare).isPositive();
            } finally {
                for (RawHttp c : refused) c.close();
            }
        }
    }

    /**
     * Connections that hold their places with heads they never finish kept everyone out for the
     * idle timeout (60 s), health checks included (a tester's 1,000 slow heads against 512 places).
     * While new connections are refused, the ones quiet for a second are closed instead.
     */
    @Test
    void whileConnectionsAreRefusedTheQuietOnesMakeRoom() throws Exception {
        try (TestNode node = WithProperty.with(JvmSettings.MAX_CONNECTIONS, "6",
                () -> TestNode.start(TestNode.config(dir).withTuning(JvmSettings.read()), s -> s))) {
            int port = node.node.port();
            List<RawHttp> held = new ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) {
                    RawHttp c = new RawHttp(port);
                    held.add(c);
                    c.send("GET /v0/entity?id=x HTTP/1.1\r\nHost: x\r\nX-Slow: ");
                }
                Thread.sleep(300); // counted on their event loops
                long t0 = System.nanoTime();
                List<String> answers = new ArrayList<>();
                while (System.nanoTime() - t0 < 30_000_000_000L && (answers.isEmpty() || !answers.getLast().startsWith("HTTP/1.1 200"))) {
                    try (RawHttp next = new RawHttp(port)) {
                        next.socket.setSoTimeout(5_000);
                        answers.add(exchange(next, "GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").statusLine());
                    } catch (java.io.IOException e) {
                        answers.add("closed: " + e);
                    }
                    Thread.sleep(100);
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                assertThat(answers.getFirst()).as("refused while every place is held").startsWith("HTTP/1.1 503");
                assertThat(answers.getLast()).isEqualTo("HTTP/1.1 200 OK");
                assertThat(seconds).as("well within the idle timeout").isLessThan(10);
            } finally {
                for (RawHttp c : held) c.close();
            }
        }
    }

    @Test
    void theDefaultBoundFollowsTheHeapAndLeavesHalfTheDescriptors() {
        assertThat(ConnectionLimit.defaultMax(256L << 20, 20_000)).isEqualTo(1024);
        assertThat(ConnectionLimit.defaultMax(128L << 20, 20_000)).isEqualTo(512);
        assertThat(ConnectionLimit.defaultMax(64L << 20, 20_000)).isEqualTo(512);
        assertThat(ConnectionLimit.defaultMax(6L << 30, 20_000)).isEqualTo(10_000);
        assertThat(ConnectionLimit.defaultMax(6L << 30, -1)).isEqualTo(24_576);
        assertThat(ConnectionLimit.defaultMax(6L << 30, 1_000)).isEqualTo(500);
        assertThat(new ConnectionLimit(0).max()).isEqualTo(ConnectionLimit.defaultMax());
        assertThat(new ConnectionLimit(7).max()).isEqualTo(7);
    }

    private static final String STATUS = "GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n";

    private static RawHttp.Response exchange(RawHttp c, String request) throws Exception {
        c.send(request);
        return c.read();
    }
}
