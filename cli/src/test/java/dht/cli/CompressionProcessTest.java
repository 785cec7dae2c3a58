package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.client.DhtClient;
import dht.testkit.TestPorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dht serve --compression}: the same text written with none, lz4 and zstd reads back the
 * same after a restart (the stop flushes the memtable into tables), and the compressed data
 * directories are a fraction of the uncompressed one.
 */
class CompressionProcessTest {
    private static final int KEYS = 800;
    private static final String[] EVENTS = {"page_view", "add_to_cart", "checkout", "search", "login", "logout"};

    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    /** About 2 KB of JSON event records: field names repeat, values vary. */
    private static String text(Random r) {
        StringBuilder sb = new StringBuilder();
        while (sb.length() < 2000) {
            sb.append("{\"user\":\"user").append(r.nextInt(100_000)).append("\",\"event\":\"")
                    .append(EVENTS[r.nextInt(EVENTS.length)]).append("\",\"path\":\"/products/").append(r.nextInt(500))
                    .append("\",\"status\":200,\"ms\":").append(r.nextInt(2000))
                    .append(",\"agent\":\"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\"}\n");
        }
        return sb.toString();
    }

    @Test
    void everyCodecReadsBackTheSameAndTheCompressedDirectoriesAreSmall() throws Exception {
        Random r = new Random(7);
        Map<String, String> data = new LinkedHashMap<>();
        for (int i = 0; i < KEYS; i++) data.put("key" + i, text(r));
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (String codec : List.of("none", "lz4", "zstd")) {
            Path dir = tmp.resolve(codec);
            NodeProcess n = new NodeProcess(TestPorts.free(), dir, List.of("--compression", codec, "--memtable-size", "1048576"));
            cluster.nodes.add(n);
            n.startAndAwait();
            try (DhtClient client = DhtClient.builder().nodes(n.url()).requestTimeout(Duration.ofSeconds(30)).build()) {
                List<CompletableFuture<Void>> puts = new ArrayList<>();
                for (var e : data.entrySet()) {
                    puts.add(client.putAsync(e.getKey(), e.getValue()));
                    if (puts.size() % 16 == 0) CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).join();
                }
                CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).join(); // a failed PUT throws its DhtException here
            }
            assertThat(n.terminate(Duration.ofSeconds(30))).as("exit code after SIGTERM").isZero();
            sizes.put(codec, directoryBytes(dir));
            n.startAndAwait();
            try (DhtClient client = DhtClient.builder().nodes(n.url()).requestTimeout(Duration.ofSeconds(30)).build()) {
                Map<String, CompletableFuture<Optional<String>>> gets = new LinkedHashMap<>();
                for (var e : data.entrySet()) {
                    gets.put(e.getKey(), client.getStringAsync(e.getKey()));
                    if (gets.size() % 16 == 0) CompletableFuture.allOf(gets.values().toArray(CompletableFuture[]::new)).join();
                }
                for (var e : data.entrySet()) {
                    assertThat(gets.get(e.getKey()).join()).as("GET %s with %s", e.getKey(), codec).contains(e.getValue());
                }
            }
            assertThat(n.terminate(Duration.ofSeconds(30))).isZero();
        }
        System.out.println("data directory bytes after a flush: " + sizes);
        long none = sizes.get("none");
        assertThat(none).as("the uncompressed directory holds the data").isGreaterThan(KEYS * 2000L);
        assertThat(sizes.get("lz4")).as("lz4 against none: %s", sizes).isLessThanOrEqualTo(none * 40 / 100);
        assertThat(sizes.get("zstd")).as("zstd against none: %s", sizes).isLessThanOrEqualTo(none * 40 / 100);
    }

    private static long directoryBytes(Path dir) throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            long n = 0;
            for (Path p : s.filter(Files::isRegularFile).toList()) n += Files.size(p);
            return n;
        }
    }
}
