package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code dht repair} names the cure when a node refuses its key stream for the cluster secret, not
 * only at the stream's first open but also mid-run: a stream cut short is opened again, and the
 * node may have been restarted with a secret in between. A stub node answers the first stream with
 * one key and cuts it, then refuses every later one with 401.
 */
class RepairSecretHintTest {
    private final StubServer stub = new StubServer();
    private final AtomicInteger streamsOpened = new AtomicInteger();
    private volatile String self;

    @AfterEach
    void stop() throws Exception {
        stub.close();
    }

    @Test
    void aStreamRefusedForTheSecretMidRunEndsWithTheSecretHint() throws Exception {
        self = stub.start(server -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    answer(s);
                } catch (IOException ignored) {
                    // closed: the test is over, or the client went away
                }
            }
        });
        DhtRun repair = DhtRun.of(Duration.ofSeconds(60), "repair", "--url", self);
        assertThat(streamsOpened.get()).as("the cut stream was opened again").isGreaterThanOrEqualTo(2);
        assertThat(repair.exitCode()).as(repair.stderr()).isEqualTo(1);
        assertThat(repair.stderr()).contains("answered 401").contains("give --cluster-secret-file");
    }

    private void answer(Socket s) throws IOException {
        String line = StubServer.requestLine(s);
        OutputStream out = s.getOutputStream();
        if (line.startsWith("GET /v0/status")) {
            byte[] body = ("{\"node\":\"" + self + "\",\"cluster\":[\"" + self + "\"],\"replicationFactor\":1,"
                    + "\"tableBytes\":0,\"memtableBytes\":0}").getBytes(StandardCharsets.UTF_8);
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
        } else if (line.startsWith("GET /internal/v0/entities")) {
            if (streamsOpened.incrementAndGet() > 1) {
                out.write("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                return;
            }
            out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n" + NodeKeyStreamTest.MARK + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] r = NodeKeyStreamTest.record(false, "a", "v");
            out.write((Integer.toHexString(r.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(r);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            // no terminating chunk: the stream is cut short
        } else {
            // the repair of a key: nothing was missing
            out.write(("HTTP/1.1 200 OK\r\n" + RepairCommand.REPAIR_HEADER + ": sent=0\r\nContent-Length: 1\r\n"
                    + "Connection: close\r\n\r\nv").getBytes(StandardCharsets.US_ASCII));
        }
    }
}
