package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.rpc.ClusterSecret;
import dht.testkit.TestPorts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An on-path writer without the secret: a relay in front of one of three members (its URL in the
 * cluster is the relay's) that adds a forged record to each range stream it carries. The stream's
 * seals make the reader refuse it, so the forged key reaches no answer; before them, a cluster scan
 * answered it.
 */
class SealedStreamRelayTest {
    static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    Relay relay;

    @AfterEach
    void stop() throws IOException {
        for (Node n : nodes) n.close();
        if (relay != null) relay.close();
    }

    @Test
    void aRecordAddedToAStreamOnTheWayReachesNoAnswer() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        relay = new Relay(ports.get(2));
        List<String> urls = List.of("http://localhost:" + ports.get(0), "http://localhost:" + ports.get(1),
                "http://localhost:" + relay.port());
        for (int i = 0; i < 3; i++) {
            nodes.add(Node.start(new NodeConfig(ports.get(i), dir.resolve("n" + i), urls.get(i), urls, 256,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES,
                    NodeConfig.DEFAULT_MAX_HEADER_BYTES, Duration.ofSeconds(2), false, 1 << 20, null, 0,
                    NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults()).withClusterSecret(new ClusterSecret(SECRET))));
        }
        for (int i = 0; i < 20; i++) assertThat(send("PUT", "/v0/entity?id=k" + i + "&ack=3", "v" + i).statusCode()).isEqualTo(201);

        String scanned = scan("/v0/entities?start=a&ack=1");

        assertThat(relay.injected.get()).as("streams the relay added a record to").isPositive();
        assertThat(scanned).doesNotContain("a-forged").doesNotContain("planted");
        assertThat(send("GET", "/v0/entity?id=a-forged&ack=1", null).statusCode()).isEqualTo(404);
    }

    private HttpResponse<String> send(String method, String uri, String body) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(0).port() + uri))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20));
        return client.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The bytes of a cluster scan's answer as far as they came: complete, or cut short (a source failed). */
    private String scan(String uri) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(0).port() + uri))
                .timeout(Duration.ofSeconds(20)).build();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try (InputStream in = client.send(r, HttpResponse.BodyHandlers.ofInputStream()).body()) {
            in.transferTo(got);
        } catch (IOException e) {
            // cut short: what arrived is what a client saw
        }
        return got.toString(StandardCharsets.UTF_8);
    }

    /** Forwards to {@code target}; into each 200 chunked answer to a range stream it adds a chunk with a forged record. */
    static final class Relay implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        final AtomicInteger injected = new AtomicInteger();
        final int target;

        Relay(int target) throws IOException {
            this.target = target;
            Thread t = new Thread(this::accept, "relay");
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    Thread t = new Thread(() -> connect(client), "relay-connection");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        /** A peer may open a connection before it has a request for it: its first bytes are waited for here. */
        private void connect(Socket client) {
            try {
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                byte[] first = new byte[8192];
                int n = client.getInputStream().read(first);
                if (n <= 0) {
                    client.close();
                    upstream.close();
                    return;
                }
                boolean stream = new String(first, 0, n, StandardCharsets.ISO_8859_1).startsWith("GET /internal/v0/entities");
                upstream.getOutputStream().write(first, 0, n);
                pipe(client.getInputStream(), upstream.getOutputStream(), false);
                pipe(upstream.getInputStream(), client.getOutputStream(), stream);
            } catch (IOException e) {
                // the connection is dropped, as a failed relay's would be
            }
        }

        private void pipe(InputStream in, OutputStream out, boolean inject) {
            Thread t = new Thread(() -> {
                try (in; out) {
                    ByteArrayOutputStream head = new ByteArrayOutputStream();
                    boolean headDone = !inject;
                    byte[] buf = new byte[16384];
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        if (headDone) {
                            out.write(buf, 0, n);
                            continue;
                        }
                        head.write(buf, 0, n);
                        byte[] h = head.toByteArray();
                        int end = indexOf(h, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                        if (end < 0) continue;
                        String text = new String(h, 0, end, StandardCharsets.ISO_8859_1);
                        out.write(h, 0, end + 4);
                        if (text.startsWith("HTTP/1.1 200") && text.toLowerCase().contains("chunked")) {
                            out.write(forgedChunk());
                            injected.incrementAndGet();
                        }
                        out.write(h, end + 4, h.length - end - 4);
                        headDone = true;
                    }
                } catch (IOException e) {
                    // either side closed: the other is closed with it
                }
            }, "relay-pipe");
            t.setDaemon(true);
            t.start();
        }

        /** A range stream record (flags, timestamp, key, value) far ahead of any write, as one HTTP chunk. */
        private static byte[] forgedChunk() {
            byte[] key = "a-forged".getBytes(StandardCharsets.US_ASCII);
            byte[] value = "planted".getBytes(StandardCharsets.US_ASCII);
            ByteBuffer r = ByteBuffer.allocate(1 + 8 + 4 + key.length + 4 + value.length);
            r.put((byte) 0).putLong(1L << 60).putInt(key.length).put(key).putInt(value.length).put(value);
            byte[] size = (Integer.toHexString(r.capacity()) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            ByteArrayOutputStream chunk = new ByteArrayOutputStream();
            chunk.writeBytes(size);
            chunk.writeBytes(r.array());
            chunk.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            return chunk.toByteArray();
        }

        private static int indexOf(byte[] h, byte[] what) {
            for (int i = 0; i + what.length <= h.length; i++) {
                if (Arrays.equals(h, i, i + what.length, what, 0, what.length)) return i;
            }
            return -1;
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
