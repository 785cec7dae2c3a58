package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} of a real node (production wiring): it parses as the Prometheus text format,
 * every name starts with {@code dht_}, and its counters move with the requests made.
 */
class MetricsEndpointTest {
    /** One sample line: name, optional labels, value (an optional timestamp is not used by the registry). */
    static final Pattern SAMPLE = Pattern.compile(
            "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{((?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\]|\\\\.)*\",?)*)\\})? "
                    + "(-?[0-9.eE+-]+|NaN|[+-]Inf)");
    static final Pattern COMMENT = Pattern.compile("# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) .*");

    @TempDir
    Path dir;
    Node node;
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        if (node != null) node.close();
    }

    @Test
    void parsesAsPrometheusTextAndCountsRequests() throws Exception {
        node = Node.start(NodeConfig.single(TestPorts.free(), dir));
        HttpResponse<String> first = send("GET", "/metrics", null);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("content-type").orElseThrow()).startsWith("text/plain; version=0.0.4");
        Map<String, Double> before = parse(first.body());
        assertThat(before).containsKeys("dht_jvm_memory_used_bytes{area=\"heap\",id=\"G1 Eden Space\"}");

        for (int i = 0; i < 3; i++) assertThat(send("PUT", "/v0/entity?id=k" + i, "v").statusCode()).isEqualTo(201);
        assertThat(send("GET", "/v0/entity?id=k1", null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/v0/entity?id=absent", null).statusCode()).isEqualTo(404);
        assertThat(send("GET", "/nowhere", null).statusCode()).isEqualTo(400);

        System.gc(); // Micrometer refers weakly to what gauges read: it must still be there
        Thread.sleep(300); // past the snapshot's age, so the gauges read again
        Map<String, Double> after = parse(send("GET", "/metrics", null).body());
        assertThat(delta(before, after, "dht_http_requests_seconds_count{op=\"put\",status=\"201\"}")).isEqualTo(3);
        assertThat(delta(before, after, "dht_http_requests_seconds_count{op=\"get\",status=\"200\"}")).isEqualTo(1);
        assertThat(delta(before, after, "dht_http_requests_seconds_count{op=\"get\",status=\"404\"}")).isEqualTo(1);
        assertThat(delta(before, after, "dht_http_requests_seconds_count{op=\"other\",status=\"400\"}")).isEqualTo(1);
        assertThat(delta(before, after, "dht_quorum_outcomes_total{op=\"put\",outcome=\"ok\"}")).isEqualTo(3);
        assertThat(delta(before, after, "dht_quorum_outcomes_total{op=\"get\",outcome=\"ok\"}")).isEqualTo(2);
        assertThat(after.get("dht_http_requests_seconds_bucket{op=\"put\",status=\"201\",le=\"+Inf\"}")).isEqualTo(3);
        assertThat(after.get("dht_http_requests_seconds_sum{op=\"put\",status=\"201\"}")).isPositive();
        assertThat(after.get("dht_storage_memtable_bytes")).isPositive();
        assertThat(after.get("dht_hints_pending")).isZero();
        assertThat(after.get("dht_cluster_members")).isEqualTo(1);
        assertThat(after).containsKeys("dht_hints_pending", "dht_requests_in_flight", "dht_storage_table_bytes",
                "dht_read_repairs_total{outcome=\"sent\"}", "dht_process_uptime_seconds", "dht_cluster_members",
                "dht_storage_flushes_total", "dht_storage_compaction_written_bytes_total",
                "dht_storage_write_stall_duration_seconds_total");
    }

    @Test
    void answersOnlyGetAndHeadAndNeedsNoToken() throws Exception {
        node = Node.start(NodeConfig.single(TestPorts.free(), dir));
        assertThat(send("POST", "/metrics", "x").statusCode()).isEqualTo(405);
        assertThat(send("HEAD", "/metrics", null).statusCode()).isEqualTo(200);
    }

    HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://localhost:" + node.port() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build();
        return client.send(r, HttpResponse.BodyHandlers.ofString());
    }

    static double delta(Map<String, Double> before, Map<String, Double> after, String series) {
        assertThat(after).containsKey(series);
        return after.get(series) - before.getOrDefault(series, 0.0);
    }

    /**
     * A small parser of the text format: every line is a HELP or TYPE comment or a sample; every
     * sample's name starts with {@code dht_} and belongs to a family declared by a TYPE line.
     * Returns each series (name and labels as written) with its value.
     */
    static Map<String, Double> parse(String text) {
        Map<String, Double> series = new HashMap<>();
        Map<String, String> types = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty()) continue;
            Matcher c = COMMENT.matcher(line);
            if (c.matches()) {
                if (c.group(1).equals("TYPE")) types.put(c.group(2), line.substring(line.lastIndexOf(' ') + 1));
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertThat(m.matches()).as("a sample line: %s", line).isTrue();
            String name = m.group(1);
            assertThat(name).startsWith("dht_");
            String family = family(name, types);
            assertThat(family).as("a TYPE line for %s", name).isNotNull();
            if (types.get(family).equals("counter")) assertThat(name).endsWith("_total");
            String key = m.group(2) == null ? name : name + m.group(2);
            assertThat(series.put(key, Double.parseDouble(m.group(4).replace("Inf", "Infinity"))))
                    .as("series once: %s", key).isNull();
        }
        return series;
    }

    private static String family(String name, Map<String, String> types) {
        if (types.containsKey(name)) return name;
        for (String suffix : List.of("_total", "_bucket", "_count", "_sum", "_created", "_info")) {
            if (name.endsWith(suffix)) {
                String base = name.substring(0, name.length() - suffix.length());
                if (types.containsKey(base)) return base;
            }
        }
        return null;
    }
}
