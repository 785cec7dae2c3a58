package dht.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.node.cluster.MembershipChangeException;
import dht.node.rpc.CaTrust;
import dht.node.rpc.MembershipClient;
import dht.node.rpc.TlsFiles;
import dht.node.rpc.TlsProvider;
import dht.testkit.TestCa;
import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Three in-process nodes speaking HTTPS only, with certificates of a test CA made here with openssl;
 * each engine ({@link TlsProvider}: BoringSSL, the JDK's) serves, calls peers and refuses them alike.
 */
class TlsClusterTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    /** A CA, and a certificate for localhost it signed, made in the test's directory. */
    private TlsFiles certificates() throws Exception {
        TestCa ca = TestCa.create(dir);
        return new TlsFiles(ca.cert(), ca.key(), ca.ca());
    }

    private static HttpClient client(Path ca) {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(CaTrust.context(ca))
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    @ParameterizedTest
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void nodesReplicateAndScanOverTls(TlsProvider provider) throws Exception {
        TlsFiles files = certificates();
        TlsFiles tls = new TlsFiles(files.cert(), files.key(), files.ca(), provider);
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "https://localhost:" + p).toList();
        for (int i = 0; i < 3; i++) {
            nodes.add(Node.start(new NodeConfig(ports.get(i), dir.resolve("n" + i), urls.get(i), urls, 256,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES,
                    NodeConfig.DEFAULT_MAX_HEADER_BYTES, Duration.ofSeconds(2), false, 1 << 20, null, 0,
                    NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults()).withTls(tls)));
        }
        HttpClient client = client(tls.ca());
        // The first handshakes of a cold JVM on a loaded machine may take longer than the replica
        // timeout: wait until node 0 has reached both peers over TLS.
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String status = "";
        while (System.nanoTime() < deadline) {
            status = client.send(HttpRequest.newBuilder(URI.create(urls.get(0) + "/v0/status")).timeout(Duration.ofSeconds(20))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            if (!status.contains("\"down\"")) break;
            Thread.sleep(200);
        }
        assertThat(status).doesNotContain("\"down\"");
        HttpResponse<String> put = client.send(HttpRequest.newBuilder(URI.create(urls.get(0) + "/v0/entity?id=k&ack=3"))
                .PUT(HttpRequest.BodyPublishers.ofString("v")).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).isEqualTo(201);
        HttpResponse<String> get = client.send(HttpRequest.newBuilder(URI.create(urls.get(2) + "/v0/entity?id=k&ack=3"))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(get.body()).isEqualTo("v");
        HttpResponse<String> scan = client.send(HttpRequest.newBuilder(URI.create(urls.get(1) + "/v0/entities?start=a&ack=3"))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(scan.body()).isEqualTo("k\nv");
        // membership calls check the peer against the node's CA as well; a client without it is refused
        byte[] membership = new MembershipClient(Duration.ofSeconds(20), null, CaTrust.context(tls.ca()))
                .call(urls.get(1), "get", "", new byte[0]);
        assertThat(new String(membership, java.nio.charset.StandardCharsets.UTF_8)).contains(urls.get(2));
        assertThatThrownBy(() -> new MembershipClient(Duration.ofSeconds(20), null, SSLContext.getDefault())
                .call(urls.get(1), "get", "", new byte[0])).isInstanceOf(MembershipChangeException.class);
        // plain HTTP gets no answer on an HTTPS port
        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThatThrownBy(() -> plain.send(HttpRequest.newBuilder(URI.create("http://localhost:" + ports.get(0) + "/v0/status"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(java.io.IOException.class);
    }

    /**
     * Many concurrent writes that each need all three replicas: every peer call must reuse a
     * connection whose handshake is done, or wait for one, never time out and start over.
     */
    @Test
    void concurrentWritesWithAllReplicasSucceedOverTls() throws Exception {
        TlsFiles tls = certificates();
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "https://localhost:" + p).toList();
        for (int i = 0; i < 3; i++) {
            nodes.add(Node.start(new NodeConfig(ports.get(i), dir.resolve("c" + i), urls.get(i), urls, 4096,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES,
                    NodeConfig.DEFAULT_MAX_HEADER_BYTES, NodeConfig.DEFAULT_REPLICA_TIMEOUT, false, 1 << 20, null, 1,
                    NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults()).withTls(tls)));
        }
        HttpClient client = client(tls.ca());
        // The client's own connections (64, as the benchmark's) are opened first: what is measured
        // is the nodes' connections to each other, which no request has opened yet.
        int clientConnections = 64;
        List<CompletableFuture<HttpResponse<String>>> warm = new ArrayList<>();
        for (int i = 0; i < clientConnections; i++) {
            warm.add(client.sendAsync(HttpRequest.newBuilder(URI.create(urls.get(i % 3) + "/v0/status"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (var w : warm) assertThat(w.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        int writes = 300;
        Semaphore connections = new Semaphore(clientConnections);
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < writes; i++) {
            connections.acquire();
            answers.add(client.sendAsync(HttpRequest.newBuilder(URI.create(urls.get(i % 3) + "/v0/entity?id=k" + i + "&ack=3"))
                    .PUT(HttpRequest.BodyPublishers.ofString("v" + i)).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> connections.release()));
        }
        List<Integer> statuses = new ArrayList<>();
        for (var a : answers) statuses.add(a.get(60, TimeUnit.SECONDS).statusCode());
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(statuses).as("statuses of %d concurrent PUTs with ack=3, in %s", writes, took)
                .allMatch(s -> s == 201);
        assertThat(took).isLessThan(Duration.ofSeconds(20));
    }

    /** A peer whose certificate the CA did not sign is no replica: TLS to it fails. */
    @ParameterizedTest
    @EnumSource(value = TlsProvider.class, names = {"OPENSSL", "JDK"})
    void aPeerWithAnUntrustedCertificateIsNoReplica(TlsProvider provider) throws Exception {
        TlsFiles files = certificates();
        TlsFiles tls = new TlsFiles(files.cert(), files.key(), files.ca(), provider);
        TestCa.openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "self.key", "-out", "self.pem",
                "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost");
        TlsFiles stranger = new TlsFiles(dir.resolve("self.pem"), dir.resolve("self.key"), files.ca(), provider);
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "https://localhost:" + p).toList();
        for (int i = 0; i < 2; i++) {
            nodes.add(Node.start(new NodeConfig(ports.get(i), dir.resolve("m" + i), urls.get(i), urls, 256,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES,
                    NodeConfig.DEFAULT_MAX_HEADER_BYTES, Duration.ofSeconds(2), false, 1 << 20, null, 0,
                    NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults()).withTls(i == 0 ? tls : stranger)));
        }
        HttpClient client = client(tls.ca());
        HttpResponse<String> put = client.send(HttpRequest.newBuilder(URI.create(urls.get(0) + "/v0/entity?id=k&ack=2"))
                .PUT(HttpRequest.BodyPublishers.ofString("v")).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).isEqualTo(504);
    }
}
