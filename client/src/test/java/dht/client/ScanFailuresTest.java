package dht.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What a scan reports when the node's answer is not a complete chunked 200 (a raw-socket stub node). */
class ScanFailuresTest {
    private ServerSocket server;
    private Thread stub;

    /** Starts a stub that answers the first connection with {@code answer} and then closes it (or holds it). */
    private String stubAnswering(String answer, boolean holdOpen) throws IOException {
        server = new ServerSocket(0);
        stub = Thread.ofPlatform().daemon().start(() -> {
            try (Socket s = server.accept()) {
                s.getInputStream().read(new byte[4096]);
                OutputStream out = s.getOutputStream();
                out.write(answer.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                if (holdOpen) Thread.sleep(10_000);
            } catch (IOException | InterruptedException ignored) {
                // the test is over
            }
        });
        return "http://localhost:" + server.getLocalPort();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) server.close();
        if (stub != null) stub.interrupt();
    }

    @Test
    void anAnswerCutShortAfterSomeEntriesFailsAsIncomplete() throws Exception {
        String url = stubAnswering("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\na\n1\r\n", false);
        try (DhtClient client = DhtClient.create(url); Stream<Entry> entries = client.scan("a", null)) {
            Iterator<Entry> it = entries.iterator();

            assertThat(it.next()).isEqualTo(new Entry(DhtClient.utf8("a"), DhtClient.utf8("1")));
            assertThatThrownBy(it::hasNext).isInstanceOf(IncompleteScanException.class);
        }
    }

    @Test
    void aNodeThatStopsSendingFailsTheScanAfterTheRequestTimeout() throws Exception {
        String url = stubAnswering("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\na\n1\r\n", true);
        try (DhtClient client = DhtClient.builder().nodes(url).requestTimeout(Duration.ofMillis(300)).build();
             Stream<Entry> entries = client.scan("a", null)) {
            Iterator<Entry> it = entries.iterator();

            assertThat(it.next().keyString()).isEqualTo("a");
            assertThatThrownBy(it::hasNext).isInstanceOf(DhtTimeoutException.class);
        }
    }

    @Test
    void aScanThatCannotReachItsReplicasIsAQuorumFailure() throws Exception {
        String url = stubAnswering("HTTP/1.1 504 Gateway Timeout\r\nContent-Length: 31\r\n\r\nscan incomplete: 1 of 2 needed\n", false);
        try (DhtClient client = DhtClient.create(url)) {
            assertThatThrownBy(() -> client.scan("a", null))
                    .isInstanceOfSatisfying(QuorumNotReachedException.class,
                            e -> assertThat(e).hasMessageContaining("scan incomplete: 1 of 2 needed"));
        }
    }
}
