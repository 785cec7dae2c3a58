package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.http.ConnectionLimit;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
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
            List<Socket> held = new ArrayList<>();
            try {
                // Each is answered once (so it is surely counted: accepts are counted on two event
                // loops, not in connect order), then two sit inside a head.
                Socket first = new Socket("localhost", node.node.port());
                held.add(first);
                assertThat(exchange(first, "GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 200 OK");
                for (int i = 0; i < 2; i++) {
                    Socket s = new Socket("localhost", node.node.port());
                    held.add(s);
                    assertThat(exchange(s, "GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 200 OK");
                    s.getOutputStream().write("GET /v0/entity?id=x HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
                }
                try (Socket extra = new Socket("localhost", node.node.port())) {
                    extra.setSoTimeout(5_000);
                    String answer = new String(extra.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                    assertThat(answer).startsWith("HTTP/1.1 503 Service Unavailable\r\n").contains("Retry-After: 1\r\n")
                            .contains("Connection: close\r\n").endsWith("too many connections (3 open); retry\n");
                }
                assertThat(exchange(first, "GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 200 OK");

                held.remove(1).close(); // a half-sent head's slot is given back when it closes
                String answer = "";
                for (int i = 0; i < 50 && !answer.startsWith("HTTP/1.1 200"); i++) {
                    try (Socket next = new Socket("localhost", node.node.port())) {
                        next.setSoTimeout(5_000);
                        answer = exchange(next, "GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                    }
                    if (!answer.startsWith("HTTP/1.1 200")) Thread.sleep(20);
                }
                assertThat(answer).startsWith("HTTP/1.1 200 OK");
                String metrics = exchange(first, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(metrics).contains("dht_http_connections_max 3.0").contains("dht_http_connections_refused_total ");
            } finally {
                for (Socket s : held) s.close();
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
             Socket held = new Socket("localhost", node.node.port())) {
            assertThat(exchange(held, "GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n")).startsWith("HTTP/1.1 200 OK");
            List<Socket> refused = new ArrayList<>();
            try {
                for (int i = 0; i < 40; i++) refused.add(new Socket("localhost", node.node.port()));
                int answered = 0;
                int closedBare = 0;
                for (Socket s : refused) {
                    s.setSoTimeout(10_000);
                    String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                    if (answer.isEmpty()) closedBare++;
                    else if (answer.startsWith("HTTP/1.1 503 ")) answered++;
                    else throw new AssertionError("unexpected answer: " + answer);
                }
                assertThat(answered).isBetween(1, 39);
                assertThat(closedBare).isPositive();
            } finally {
                for (Socket s : refused) s.close();
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

    /** Sends {@code request} and reads one answer's head and body (Content-Length) on {@code s}. */
    private static String exchange(Socket s, String request) throws Exception {
        s.setSoTimeout(5_000);
        OutputStream out = s.getOutputStream();
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = s.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) break;
            head.append((char) b);
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: (\\d+)").matcher(head);
        int length = m.find() ? Integer.parseInt(m.group(1)) : 0;
        return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }
}
