package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write that waited at a stopped (SIGSTOP) coordinator is not applied once the node runs again:
 * its client may have given up long before, and the write would take a timestamp from then, newer
 * than writes other nodes acknowledged meanwhile. Before, a DELETE given up on at a frozen node
 * erased a value acknowledged through another node after it. A client still waiting gets 503.
 */
class AbandonedWriteProcessTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    @Test
    void aWriteQueuedAtAFrozenNodeDoesNotUndoOneAcknowledgedAfterIt() throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, 3);
        NodeProcess a = cluster.nodes.get(0);
        NodeProcess frozen = cluster.nodes.get(1);
        assertThat(cluster.requests.write(a, "k", "old", 3, 3)).isEqualTo(201);
        assertThat(cluster.requests.write(frozen, "warm", "w", 3, 3)).isEqualTo(201);

        frozen.freeze();
        try (Socket waiting = new Socket()) {
            try (Socket abandoned = new Socket()) {
                abandoned.connect(new InetSocketAddress("localhost", frozen.port));
                send(abandoned, "DELETE /v0/entity?id=k HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
            } // given up: closed before any answer
            waiting.connect(new InetSocketAddress("localhost", frozen.port));
            send(waiting, "PUT /v0/entity?id=other HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx");
            Thread.sleep(3_000); // longer than the pause the node notices (2 s)
            assertThat(cluster.requests.write(a, "k", "new", 0, 0)).as("acknowledged while the node is stopped").isEqualTo(201);
            frozen.thaw();

            waiting.setSoTimeout(20_000);
            String answer = statusLine(waiting.getInputStream());
            assertThat(answer).as("the waiting client's answer").isEqualTo("HTTP/1.1 503 Service Unavailable");
        }
        Thread.sleep(1_000);
        for (NodeProcess via : cluster.nodes) {
            assertThat(cluster.requests.get(via, "k", 0, 0)).as("k through " + via.url()).isEqualTo("new");
        }
        assertThat(cluster.requests.get(a, "other", 1, 3)).as("the refused PUT was not applied").isEqualTo("404");
        // and once it has been running a second, the node takes writes again
        assertThat(cluster.requests.write(frozen, "after", "a", 0, 0)).isEqualTo(201);
    }

    private static void send(Socket s, String request) throws Exception {
        OutputStream out = s.getOutputStream();
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static String statusLine(InputStream in) throws Exception {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != -1 && c != '\r'; c = in.read()) b.append((char) c);
        return b.toString();
    }
}
