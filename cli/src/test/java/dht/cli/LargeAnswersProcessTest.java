package dht.cli;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node with {@code -Xmx128m} whose clients ask for far more large answers than its heap holds:
 * 24 connections, each pipelining 400 GETs of a 1 MiB value and reading none of the answers. The
 * node must keep answering everyone else, give every permit and every reserved byte back once
 * those clients leave, and never run out of memory.
 */
class LargeAnswersProcessTest {
    private static final int CLIENTS = 24;
    private static final int PIPELINED = 400;
    private static final int VALUE_BYTES = 1 << 20;

    @TempDir
    Path tmp;

    private NodeProcess node;
    private final List<Socket> clients = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @AfterEach
    void stop() throws Exception {
        for (Socket s : clients) s.close();
        if (node != null) node.close();
    }

    @Test
    void clientsThatDoNotReadLargeAnswersCannotExhaustTheHeap() throws Exception {
        node = new NodeProcess(TestPorts.free(), tmp.resolve("d"), List.of("--io-threads", "1")).startAndAwait();
        byte[] value = new byte[VALUE_BYTES];
        Arrays.fill(value, (byte) 'v');
        assertThat(send(HttpRequest.newBuilder(uri("/v0/entity?id=big")).PUT(HttpRequest.BodyPublishers.ofByteArray(value)))
                .statusCode()).isEqualTo(201);

        byte[] requests = ("GET /v0/entity?id=big HTTP/1.1\r\nHost: localhost\r\n\r\n").repeat(PIPELINED)
                .getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < CLIENTS; i++) {
            Socket s = new Socket();
            s.setReceiveBufferSize(4096); // a client that does not read: the answers back up into the node
            s.connect(new InetSocketAddress("localhost", node.port), 2000);
            clients.add(s);
            OutputStream out = s.getOutputStream();
            out.write(requests);
            out.flush();
        }

        // While they sit on their answers, everyone else is served: the status, and the value itself
        // (half the answer budget is kept from answers that wait, so a reading client's GET finds room).
        int served = 0;
        long until = System.nanoTime() + Duration.ofSeconds(8).toNanos();
        while (System.nanoTime() < until) {
            assertThat(node.process().isAlive()).as("node alive; its output:\n%s", node.output()).isTrue();
            assertThat(send(HttpRequest.newBuilder(uri("/v0/status"))).statusCode()).isEqualTo(200);
            HttpResponse<byte[]> got = http.send(HttpRequest.newBuilder(uri("/v0/entity?id=big")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(got.statusCode()).as("a reading client's GET of the value").isIn(200, 503);
            if (got.statusCode() == 200) {
                assertThat(got.body()).isEqualTo(value);
                served++;
            }
            Thread.sleep(300);
        }
        assertThat(served).as("reading clients' GETs served while the others hold their answers").isPositive();

        for (Socket s : clients) s.close();
        clients.clear();
        String status = "";
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            status = send(HttpRequest.newBuilder(uri("/v0/status"))).body();
            if (status.contains("\"inFlight\":0,") && status.contains("\"answerBytes\":0,")) break;
            Thread.sleep(100);
        }
        assertThat(status).as("every permit and reserved byte back once the clients are gone; the node's output:%n%s",
                        tail(node.output(), 30_000))
                .contains("\"inFlight\":0,").contains("\"answerBytes\":0,");
        HttpResponse<byte[]> got = http.send(HttpRequest.newBuilder(uri("/v0/entity?id=big")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.body()).isEqualTo(value);
        assertThat(node.output()).doesNotContain("OutOfMemoryError");
    }

    private static String tail(String s, int chars) {
        return s.length() <= chars ? s : "..." + s.substring(s.length() - chars);
    }

    private URI uri(String path) {
        return URI.create(node.url() + path);
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
