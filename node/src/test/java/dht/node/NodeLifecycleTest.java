package dht.node;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.storage.DirectoryLockedException;
import java.net.BindException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start, stop and restart of real nodes (the LSM engine and the cluster layer) on real files and sockets. */
class NodeLifecycleTest {
    @TempDir
    Path dir;
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    HttpResponse<String> send(Node node, String method, String pathAndQuery, String body) throws Exception {
        return client.send(request(node, method, pathAndQuery, body), HttpResponse.BodyHandlers.ofString());
    }

    static HttpRequest request(Node node, String method, String pathAndQuery, String body) {
        return HttpRequest.newBuilder(URI.create("http://localhost:" + node.port() + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .timeout(Duration.ofSeconds(30)).build();
    }

    @Test
    void restartKeepsEveryAcknowledgedWrite() throws Exception {
        NodeConfig config = TestNode.config(dir);
        try (Node node = Node.start(config)) {
            for (int i = 0; i < 200; i++) {
                assertThat(send(node, "PUT", "/v0/entity?id=key" + i, "value" + i).statusCode()).isEqualTo(201);
            }
            for (int i = 0; i < 200; i += 3) {
                assertThat(send(node, "DELETE", "/v0/entity?id=key" + i, null).statusCode()).isEqualTo(202);
            }
        }
        try (Node node = Node.start(config)) {
            for (int i = 0; i < 200; i++) {
                HttpResponse<String> r = send(node, "GET", "/v0/entity?id=key" + i, null);
                if (i % 3 == 0) {
                    assertThat(r.statusCode()).as("key%d", i).isEqualTo(404);
                } else {
                    assertThat(r.statusCode()).as("key%d", i).isEqualTo(200);
                    assertThat(r.body()).isEqualTo("value" + i);
                }
            }
            HttpResponse<String> status = send(node, "GET", "/v0/status", null);
            assertThat(status.statusCode()).isEqualTo(200);
            assertThat(status.body()).contains("\"transport\":\"" + Transport.choose(Tuning.defaults().transport(), 0).name() + "\"");
        }
    }

    @Test
    void byDefaultTheNodeRunsOneEventLoopPerCore() throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        Set<Thread> before = ioThreads();
        try (Node node = Node.start(TestNode.config(dir))) {
            // Netty starts a loop's thread when the first connection is registered on it, and
            // assigns connections round-robin: three per core reach every loop there is.
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            List<HttpClient> clients = new ArrayList<>();
            for (int i = 0; i < 3 * cores; i++) {
                HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                clients.add(c);
                answers.add(c.sendAsync(request(node, "GET", "/v0/status", null), HttpResponse.BodyHandlers.ofString()));
            }
            for (CompletableFuture<HttpResponse<String>> a : answers) assertThat(a.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            Set<Thread> started = ioThreads();
            started.removeAll(before);
            assertThat(started).hasSize(cores);
            clients.forEach(HttpClient::close);
        }
    }

    private static Set<Thread> ioThreads() {
        Set<Thread> threads = new HashSet<>(Thread.getAllStackTraces().keySet());
        threads.removeIf(t -> !t.getName().startsWith("http-io-"));
        return threads;
    }

    @Test
    void aSecondNodeOnTheSameDirectoryFailsFastAndTheFirstKeepsServing() throws Exception {
        try (Node first = Node.start(TestNode.config(dir))) {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> Node.start(TestNode.config(dir))).isInstanceOf(DirectoryLockedException.class);
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));
            assertThat(send(first, "PUT", "/v0/entity?id=a", "b").statusCode()).isEqualTo(201);
        }
    }

    @Test
    void aBusyPortFailsWithBindExceptionAndLeavesTheDirectoryUntouched() throws Exception {
        try (ServerSocket busy = new ServerSocket(0)) {
            NodeConfig config = TestNode.config(busy.getLocalPort(), dir, 16, 1024, 1024, 1024);
            assertThatThrownBy(() -> Node.start(config)).isInstanceOf(BindException.class);
        }
        // the port is taken before the store opens: a fresh data directory stays empty
        try (var files = java.nio.file.Files.list(dir)) {
            assertThat(files).isEmpty();
        }
        try (Node node = Node.start(TestNode.config(dir))) {
            assertThat(send(node, "GET", "/v0/status", null).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void gracefulStopFinishesTheRequestInFlight() throws Exception {
        NodeConfig config = TestNode.config(dir);
        DelegatingStore[] store = new DelegatingStore[1];
        Node node = Node.start(config, c -> store[0] = new DelegatingStore(NodeWiring.openStore(c)),
                NodeWiring::startCluster);
        store[0].hold();
        CompletableFuture<HttpResponse<String>> put = client.sendAsync(
                request(node, "PUT", "/v0/entity?id=inflight", "kept"), HttpResponse.BodyHandlers.ofString());
        assertThat(store[0].entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> stop = CompletableFuture.runAsync(node::close);
        // New connections are refused once the stop began: on another thread, which a busy machine
        // may not run within any fixed pause, so wait for the refusal (a bare connect: a client's
        // pooled connection would still be served until the write is answered). A connect that
        // races the listener's close is reset rather than refused: that is a refusal too.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (java.net.Socket s = new java.net.Socket("localhost", node.port())) {
                assertThat(System.nanoTime()).as("new connections refused once the stop began").isLessThan(deadline);
            } catch (java.net.SocketException refusedOrReset) {
                break;
            }
            Thread.sleep(20);
        }
        Thread.sleep(300);
        assertThat(stop).isNotDone(); // it is waiting for the write
        assertThatThrownBy(() -> send(node, "GET", "/v0/status", null)).isInstanceOf(java.io.IOException.class);
        store[0].open();
        assertThat(put.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        stop.get(10, TimeUnit.SECONDS);
        try (Node again = Node.start(config)) {
            HttpResponse<String> r = send(again, "GET", "/v0/entity?id=inflight", null);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("kept");
        }
    }

    @Test
    void overloadIsAnswered503AtOnceWithRetryAfter() throws Exception {
        NodeConfig config = TestNode.config(TestPorts.free(), dir, 4, 1024, 1024, 1024);
        DelegatingStore[] store = new DelegatingStore[1];
        try (Node node = Node.start(config, c -> store[0] = new DelegatingStore(NodeWiring.openStore(c)),
                NodeWiring::startCluster)) {
            store[0].hold();
            java.util.List<CompletableFuture<HttpResponse<String>>> held = new java.util.ArrayList<>();
            for (int i = 0; i < 4; i++) {
                held.add(client.sendAsync(request(node, "PUT", "/v0/entity?id=h" + i, "v"),
                        HttpResponse.BodyHandlers.ofString()));
            }
            assertThat(store[0].entered.tryAcquire(4, 10, TimeUnit.SECONDS)).isTrue();
            long t0 = System.nanoTime();
            HttpResponse<String> refused = send(node, "PUT", "/v0/entity?id=extra", "v");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
            assertThat(millis).as("503 comes at once, not after the held requests").isLessThan(5_000);
            assertThat(send(node, "GET", "/v0/status", null).statusCode()).as("status still answers").isEqualTo(200);
            store[0].open();
            for (CompletableFuture<HttpResponse<String>> f : held) {
                assertThat(f.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
            }
            assertThat(send(node, "PUT", "/v0/entity?id=extra", "v").statusCode()).isEqualTo(201);
            assertThat(send(node, "GET", "/v0/entity?id=extra", null).statusCode()).isEqualTo(200);
        }
    }
}
