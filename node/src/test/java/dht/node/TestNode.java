package dht.node;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Store;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A node started in-process on a real port, with a real HTTP client pointed at it. */
final class TestNode implements AutoCloseable {
    final Node node;
    final Store store;
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private TestNode(Node node, Store store) {
        this.node = node;
        this.store = store;
    }

    static NodeConfig config(int port, Path dir, int maxInFlight, int maxBody, int maxUri, int maxHeader) {
        String self = "http://localhost:" + port;
        return new NodeConfig(port, dir, self, List.of(self), maxInFlight, maxBody, maxUri, maxHeader,
                NodeConfig.DEFAULT_REPLICA_TIMEOUT, false, NodeConfig.DEFAULT_MEMTABLE_BYTES, null, 0, NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults(),
                NodeConfig.DEFAULT_COMPRESSION);
    }

    /** {@code c} with another body timeout. */
    static NodeConfig withBodyTimeout(NodeConfig c, Duration bodyTimeout) {
        return new NodeConfig(c.port(), c.dataDir(), c.self(), c.cluster(), c.maxInFlight(), c.maxBodyBytes(),
                c.maxUriBytes(), c.maxHeaderBytes(), c.replicaTimeout(), c.syncEveryWrite(), c.memtableBytes(),
                c.adminToken(), c.ioThreads(), bodyTimeout, c.tuning(), c.compression());
    }

    /** {@code c} as one member of {@code cluster} (which must list its own URL). */
    static NodeConfig inCluster(NodeConfig c, List<String> cluster) {
        return new NodeConfig(c.port(), c.dataDir(), c.self(), cluster, c.maxInFlight(), c.maxBodyBytes(),
                c.maxUriBytes(), c.maxHeaderBytes(), c.replicaTimeout(), c.syncEveryWrite(), c.memtableBytes(),
                c.adminToken(), c.ioThreads(), c.bodyTimeout(), c.tuning(), c.compression());
    }

    /** {@code c} with another number of event loops (0: one per CPU). */
    static NodeConfig withIoThreads(NodeConfig c, int ioThreads) {
        return new NodeConfig(c.port(), c.dataDir(), c.self(), c.cluster(), c.maxInFlight(), c.maxBodyBytes(),
                c.maxUriBytes(), c.maxHeaderBytes(), c.replicaTimeout(), c.syncEveryWrite(), c.memtableBytes(),
                c.adminToken(), ioThreads, c.bodyTimeout(), c.tuning(), c.compression());
    }

    static NodeConfig config(Path dir) throws IOException {
        return config(TestPorts.free(), dir, NodeConfig.DEFAULT_MAX_IN_FLIGHT, NodeConfig.DEFAULT_MAX_BODY_BYTES,
                NodeConfig.DEFAULT_MAX_URI_BYTES, NodeConfig.DEFAULT_MAX_HEADER_BYTES);
    }

    /** A node over an in-memory store (wrapped by {@code wrap}) and the test-only local cluster layer. */
    static TestNode start(NodeConfig config, Function<Store, Store> wrap) throws IOException {
        return start(config, wrap, LocalCluster.starter());
    }

    static TestNode start(NodeConfig config, Function<Store, Store> wrap, ClusterServices.Starter cluster)
            throws IOException {
        Store[] opened = new Store[1];
        Node node = Node.start(config, c -> opened[0] = wrap.apply(new MemoryStore()), cluster);
        return new TestNode(node, opened[0]);
    }

    static TestNode start(Path dir) throws IOException {
        return start(config(dir), s -> s);
    }

    URI uri(String pathAndQuery) {
        return URI.create("http://localhost:" + node.port() + pathAndQuery);
    }

    HttpResponse<byte[]> send(String method, String pathAndQuery, byte[] body) throws IOException, InterruptedException {
        HttpRequest.BodyPublisher p = body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(body);
        return client.send(HttpRequest.newBuilder(uri(pathAndQuery)).method(method, p)
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> get(String pathAndQuery) throws IOException, InterruptedException {
        return send("GET", pathAndQuery, null);
    }

    HttpResponse<byte[]> put(String pathAndQuery, String body) throws IOException, InterruptedException {
        return send("PUT", pathAndQuery, body.getBytes(StandardCharsets.UTF_8));
    }

    /** Body bytes the node holds for requests still arriving, from /v0/status. */
    long bodyBytesHeld() throws IOException, InterruptedException {
        String json = new String(get("/v0/status").body(), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("\"bodyBytes\":(\\d+)").matcher(json);
        assertThat(m.find()).as("bodyBytes in %s", json).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Override
    public void close() {
        node.close();
    }
}
