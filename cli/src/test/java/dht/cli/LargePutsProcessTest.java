package dht.cli;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node with {@code -Xmx128m} under 48 clients each PUTting 1 MiB values as fast as it answers
 * (docs/http-server.md, "Large values through a small heap"): every answer is {@code 201} or an immediate
 * {@code 503}, the node never runs out of memory, and what it acknowledged reads back.
 */
class LargePutsProcessTest {
    private static final int CLIENTS = 48;
    private static final int VALUE_BYTES = 1 << 20;
    private static final Duration LOAD = Duration.ofSeconds(20); // the build before failed this within 20 s, not within 10

    @TempDir
    Path tmp;

    private NodeProcess node;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    @AfterEach
    void stop() throws Exception {
        if (node != null) node.close();
    }

    @Test
    void manyLargePutsAtOnceAreStoredOrRefusedWithoutExhaustingTheHeap() throws Exception {
        node = new NodeProcess(TestPorts.free(), tmp.resolve("d"), List.of()).startAndAwait();
        Map<Object, LongAdder> answers = new ConcurrentHashMap<>();
        Map<String, Byte> acknowledged = new ConcurrentHashMap<>();
        long until = System.nanoTime() + LOAD.toNanos();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            clients.add(Thread.ofVirtual().start(() -> {
                for (int k = 0; System.nanoTime() < until; k++) {
                    String key = "c" + client + "-" + (k % 4);
                    byte fill = (byte) ('a' + k % 26);
                    byte[] value = new byte[VALUE_BYTES];
                    java.util.Arrays.fill(value, fill);
                    Object outcome;
                    try {
                        outcome = http.send(HttpRequest.newBuilder(uri("/v0/entity?id=" + key))
                                .PUT(HttpRequest.BodyPublishers.ofByteArray(value)).timeout(Duration.ofSeconds(20)).build(),
                                HttpResponse.BodyHandlers.discarding()).statusCode();
                    } catch (Exception e) {
                        outcome = e.getClass().getSimpleName();
                    }
                    answers.computeIfAbsent(outcome, o -> new LongAdder()).increment();
                    if (Integer.valueOf(201).equals(outcome)) acknowledged.put(key, fill);
                }
            }));
        }
        for (Thread t : clients) t.join();

        assertThat(node.process().isAlive()).as("node alive; its output:\n%s", node.output()).isTrue();
        assertThat(answers.keySet()).as("answers: %s", answers).isSubsetOf(201, 503);
        assertThat(answers.get(201)).as("answers: %s", answers).isNotNull();
        assertThat(node.output()).doesNotContain("OutOfMemoryError").doesNotContain("refuses further writes");
        // Each key's last acknowledged value is what it holds (a client's writes to a key are sequential).
        for (Map.Entry<String, Byte> e : acknowledged.entrySet()) {
            HttpResponse<byte[]> got = http.send(HttpRequest.newBuilder(uri("/v0/entity?id=" + e.getKey()))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(got.statusCode()).as(e.getKey()).isEqualTo(200);
            assertThat(got.body()).as(e.getKey()).hasSize(VALUE_BYTES).containsOnly(e.getValue());
        }
        byte[] after = new byte[VALUE_BYTES];
        assertThat(http.send(HttpRequest.newBuilder(uri("/v0/entity?id=after")).PUT(HttpRequest.BodyPublishers.ofByteArray(after))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding()).statusCode())
                .as("writes still taken afterwards").isEqualTo(201);
    }

    private URI uri(String path) {
        return URI.create(node.url() + path);
    }
}
