package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dht.node.rpc.ClusterSecret;
import dht.testkit.TestPorts;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two in-process nodes with a cluster secret, and on the third member's address a process without
 * it (the member died, something else took its port) that answers every internal request as a
 * member would: a newer membership, a newer value for every read. Its answers do not prove the
 * secret, so it is no replica and no source of membership: its value is never read nor repaired
 * into the members' stores, and their membership stays as agreed (a black-box tester's finding:
 * before, both members took the forged membership within 12 s and read repair copied the forged
 * value into their stores).
 */
class ImpostorWithoutTheSecretTest {
    static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    HttpServer impostor;
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
        if (impostor != null) impostor.stop(0);
    }

    @Test
    void itsAnswersAreNoReplicasAndItsMembershipIsNotTaken() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        impostor = HttpServer.create(new InetSocketAddress("localhost", ports.get(2)), 0);
        String forgedMembership = "version=2\nreplicationFactor=3\nmember=" + urls.get(0) + "\nmember=" + urls.get(2)
                + "\nmember=http://localhost:1\n";
        impostor.createContext("/", ex -> answerAsAMember(ex, forgedMembership));
        impostor.start();
        for (int i = 0; i < 2; i++) {
            nodes.add(Node.start(new NodeConfig(ports.get(i), dir.resolve("n" + i), urls.get(i), urls, 256,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES,
                    NodeConfig.DEFAULT_MAX_HEADER_BYTES, Duration.ofSeconds(2), false, 1 << 20, null, 0,
                    NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults()).withClusterSecret(new ClusterSecret(SECRET))));
        }
        assertThat(get(0, "/v0/entity?id=k").statusCode()).as("nothing written yet").isEqualTo(404);
        assertThat(send(0, "PUT", "/v0/entity?id=k&ack=2", "real").statusCode()).isEqualTo(201);

        for (int i = 0; i < 5; i++) {
            HttpResponse<String> read = get(i % 2, "/v0/entity?id=k");
            assertThat(read.body()).as("a read through a member").isEqualTo("real");
        }
        assertThat(get(0, "/v0/entity?id=k&ack=3").statusCode()).as("three answers: the impostor's is none").isEqualTo(504);
        Thread.sleep(5_000); // two membership pulls and more
        for (int i = 0; i < 2; i++) {
            String status = get(i, "/v0/status").body();
            assertThat(status).as("node %d", i).contains("\"membershipVersion\":1", "\"" + urls.get(2) + "\":\"down\"")
                    .doesNotContain("localhost:1\"");
            String uri = "/internal/v0/entity?id=k";
            HttpRequest own = HttpRequest.newBuilder(URI.create(urls.get(i) + uri)).header(ClusterSecret.HEADER,
                    new ClusterSecret(SECRET).sign("GET", uri, new byte[0], System.currentTimeMillis())).build();
            assertThat(client.send(own, HttpResponse.BodyHandlers.ofString()).body()).as("node %d's own copy", i).isEqualTo("real");
        }
    }

    /** Answers as a member would, with no proof: the forged membership, and a newer value for every read. */
    private static void answerAsAMember(HttpExchange ex, String membership) throws IOException {
        long now = System.currentTimeMillis() * 1_000;
        String path = ex.getRequestURI().getPath();
        byte[] request = ex.getRequestBody().readAllBytes();
        byte[] body;
        if (path.equals("/internal/v0/membership")) {
            body = membership.getBytes(StandardCharsets.UTF_8);
        } else if (path.equals("/internal/v0/batch")) {
            body = forgedBatchAnswer(request, now);
        } else {
            body = "forged".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("X-Dht-Timestamp", Long.toString(now + 60_000_000));
            ex.getResponseHeaders().set("X-Dht-Tombstone", "0");
        }
        ex.getResponseHeaders().set("X-Dht-Clock", Long.toString(now));
        int status = path.equals("/internal/v0/entity") && !ex.getRequestMethod().equals("GET") ? 201 : 200;
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        ex.getResponseBody().write(body);
        ex.close();
    }

    /** docs/wire-format.md, "Batched point operations": every read finds "forged", newer than anything; every write is written. */
    private static byte[] forgedBatchAnswer(byte[] request, long now) throws IOException {
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(request));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        int count = in.readInt();
        out.writeInt(count);
        byte[] forged = "forged".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < count; i++) {
            int kind = in.readByte();
            in.skipNBytes(in.readInt());
            if (kind == 1) {
                out.writeByte(1);
                out.writeLong(now + 60_000_000);
                out.writeLong(0);
                out.writeInt(forged.length);
                out.write(forged);
                continue;
            }
            in.skipNBytes(8);
            if (kind == 2) {
                in.skipNBytes(8);
                in.skipNBytes(in.readInt());
            }
            out.writeByte(4);
        }
        return bytes.toByteArray();
    }

    private HttpResponse<String> get(int node, String uri) throws Exception {
        return send(node, "GET", uri, null);
    }

    private HttpResponse<String> send(int node, String method, String uri, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(node).port() + uri))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build();
        return client.send(r, HttpResponse.BodyHandlers.ofString());
    }
}
