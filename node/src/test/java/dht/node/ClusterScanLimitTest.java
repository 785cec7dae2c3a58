package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.AntiEntropySettings;
import dht.node.cluster.HintSettings;
import dht.testkit.TestPorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code limit=N} on cluster scans of three real nodes: the first N keys whose newest version in
 * the cluster is live, whichever node coordinates, even where a peer's first N values are keys
 * deleted on other nodes (the coordinator reads that peer further, a page at a time). Each node's
 * own versions are written through the internal routes, so the nodes disagree exactly as the test
 * says.
 */
class ClusterScanLimitTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    /** A minute ago, in the clock's microseconds: every version the test writes is older than now. */
    final long base = System.currentTimeMillis() * 1000 - 60_000_000L;

    @BeforeEach
    void start() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 3; i++) {
            // No anti-entropy: each node keeps exactly the versions the test gave it.
            nodes.add(Node.start(new NodeConfig(ports.get(i), dir.resolve("n" + i), urls.get(i), urls, 256,
                    NodeConfig.DEFAULT_MAX_BODY_BYTES, NodeConfig.DEFAULT_MAX_URI_BYTES,
                    NodeConfig.DEFAULT_MAX_HEADER_BYTES, Duration.ofSeconds(2), false, 1 << 20, null, 0,
                    NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults(), NodeConfig.DEFAULT_MAX_CLOCK_OFFSET,
                    NodeConfig.DEFAULT_COMPRESSION, null, null, null, HintSettings.DEFAULTS,
                    new AntiEntropySettings(Duration.ZERO, AntiEntropySettings.DEFAULT_BYTES_PER_SECOND))));
        }
    }

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private RawHttp.Response send(int node, String method, String target, byte[] body, String... headers)
            throws IOException {
        try (RawHttp c = new RawHttp(nodes.get(node).port())) {
            StringBuilder head = new StringBuilder(method + " " + target + " HTTP/1.1\r\nHost: x\r\n");
            for (String h : headers) head.append(h).append("\r\n");
            head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
            c.send(head.toString());
            c.send(body);
            return c.read();
        }
    }

    /** Stores a value in {@code node}'s own store alone, with this timestamp and expiry (0: none). */
    private void valueOn(int node, String key, long ts, long expiry) throws IOException {
        String[] headers = expiry == 0 ? new String[] {"X-Dht-Timestamp: " + ts}
                : new String[] {"X-Dht-Timestamp: " + ts, "X-Dht-Expiry: " + expiry};
        RawHttp.Response r = send(node, "PUT", "/internal/v0/entity?id=" + key, value(ts), headers);
        assertThat(r.status()).as("PUT %s on %d: %s", key, node, r.text()).isEqualTo(201);
    }

    private void tombstoneOn(int node, String key, long ts) throws IOException {
        RawHttp.Response r = send(node, "DELETE", "/internal/v0/entity?id=" + key, new byte[0], "X-Dht-Timestamp: " + ts);
        assertThat(r.status()).as("DELETE %s on %d: %s", key, node, r.text()).isEqualTo(202);
    }

    private static byte[] value(long ts) {
        return ("v" + ts).getBytes(StandardCharsets.UTF_8);
    }

    /** A scan through {@code node}: {@code key=value} per entry; the answer must be complete. */
    private List<String> scan(int node, String query) throws IOException {
        try (RawHttp c = new RawHttp(nodes.get(node).port())) {
            c.send("GET /v0/entities?" + query + " HTTP/1.1\r\nHost: x\r\n\r\n");
            List<String> chunks = ScanTest.chunks(c);
            assertThat(chunks).as("complete answer to %s via %d", query, node).doesNotContainNull();
            return chunks.stream().map(e -> e.replaceFirst("\n", "=")).toList();
        }
    }

    private static String key(int i) {
        return String.format("k%02d", i);
    }

    private List<String> live(int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) out.add(key(i) + "=v" + (base + i));
        return out;
    }

    /**
     * The peers hold values whose keys the coordinator deleted: their first pages are all deleted
     * keys, and the live ones come only from later pages.
     */
    @Test
    void keysDeletedOnTheCoordinatorAreNotCountedAndThePeersAreReadFurther() throws Exception {
        for (int i = 0; i < 30; i++) {
            valueOn(1, key(i), base + i, 0);
            valueOn(2, key(i), base + i, 0);
        }
        for (int i = 0; i < 10; i++) tombstoneOn(0, key(i), base + 100 + i);
        for (int via = 0; via < 3; via++) {
            assertThat(scan(via, "start=k&limit=1")).as("via %d", via).isEqualTo(live(10, 11));
            assertThat(scan(via, "start=k&limit=5")).as("via %d", via).isEqualTo(live(10, 15));
            assertThat(scan(via, "start=k&limit=20")).as("via %d", via).isEqualTo(live(10, 30));
            assertThat(scan(via, "start=k&limit=25")).as("via %d", via).isEqualTo(live(10, 30));
            assertThat(scan(via, "start=k05&end=k12&limit=5")).as("via %d", via).isEqualTo(live(10, 12));
            assertThat(scan(via, "start=k&limit=5&scope=local")).as("via %d", via)
                    .isEqualTo(via == 0 ? List.of() : live(0, 5));
        }
    }

    /** A tombstone on one peer hides the other peer's older values of the same keys. */
    @Test
    void aPeersTombstonesHideAnotherPeersValues() throws Exception {
        for (int i = 0; i < 20; i++) valueOn(2, key(i), base + i, 0);
        for (int i = 0; i < 10; i++) tombstoneOn(1, key(i), base + 100 + i);
        for (int via = 0; via < 3; via++) {
            assertThat(scan(via, "start=k&limit=3")).as("via %d", via).isEqualTo(live(10, 13));
            assertThat(scan(via, "start=k&limit=100")).as("via %d", via).isEqualTo(live(10, 20));
        }
    }

    /** Through the public API: deleted keys between live ones. */
    @Test
    void deletedKeysBetweenLiveOnesAreSkipped() throws Exception {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            String k = key(i);
            assertThat(send(i % 3, "PUT", "/v0/entity?id=" + k, ("x" + i).getBytes(StandardCharsets.UTF_8)).status())
                    .isEqualTo(201);
            if (i % 3 == 1) {
                assertThat(send((i + 1) % 3, "DELETE", "/v0/entity?id=" + k, new byte[0]).status()).isEqualTo(202);
            } else {
                expected.add(k + "=x" + i);
            }
        }
        for (int via = 0; via < 3; via++) {
            for (int limit : new int[] {1, 2, 7, 19, 20, 21, 500}) {
                assertThat(scan(via, "start=k&limit=" + limit)).as("via %d limit %d", via, limit)
                        .isEqualTo(expected.subList(0, Math.min(limit, expected.size())));
            }
        }
    }

    /**
     * Every node holds its own random versions of each key (none, a value, a tombstone, a value
     * expired or still to expire); every limited scan through every node is the head of the model's
     * merged answer, and a local one the head of that node's own.
     */
    @Test
    void limitedScansMatchAModelOfDisagreeingNodes() throws Exception {
        Random random = new Random(41);
        long nowMillis = System.currentTimeMillis();
        List<Long> stamps = new ArrayList<>();
        for (int i = 0; i < 40 * 3; i++) stamps.add(base + i);
        Collections.shuffle(stamps, random);
        TreeMap<String, String> merged = new TreeMap<>();
        List<TreeMap<String, String>> own = List.of(new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
        for (int k = 0; k < 40; k++) {
            String key = key(k);
            long newest = -1;
            boolean newestLive = false;
            for (int n = 0; n < 3; n++) {
                long ts = stamps.get(k * 3 + n);
                boolean live;
                switch (random.nextInt(5)) {
                    case 0 -> {
                        continue; // this node has no version
                    }
                    case 1 -> {
                        valueOn(n, key, ts, 0);
                        live = true;
                    }
                    case 2 -> {
                        tombstoneOn(n, key, ts);
                        live = false;
                    }
                    case 3 -> {
                        valueOn(n, key, ts, nowMillis - 1_000);
                        live = false;
                    }
                    default -> {
                        valueOn(n, key, ts, nowMillis + 3_600_000);
                        live = true;
                    }
                }
                if (live) own.get(n).put(key, "v" + ts);
                if (ts > newest) {
                    newest = ts;
                    newestLive = live;
                }
            }
            if (newestLive) merged.put(key, "v" + newest);
        }
        for (int via = 0; via < 3; via++) {
            for (String range : List.of("start=k", "start=k13", "start=k07&end=k31")) {
                String start = range.substring(range.indexOf('=') + 1, range.contains("&") ? range.indexOf('&') : range.length());
                String end = range.contains("end=") ? range.substring(range.indexOf("end=") + 4) : "\uffff";
                List<String> all = entries(merged.subMap(start, end));
                List<String> mine = entries(own.get(via).subMap(start, end));
                for (int limit : new int[] {1, 2, 3, 5, 8, 13, 40}) {
                    assertThat(scan(via, range + "&limit=" + limit)).as("%s limit %d via %d", range, limit, via)
                            .isEqualTo(all.subList(0, Math.min(limit, all.size())));
                    assertThat(scan(via, range + "&limit=" + limit + "&scope=local")).as("local %s limit %d via %d", range, limit, via)
                            .isEqualTo(mine.subList(0, Math.min(limit, mine.size())));
                }
            }
        }
    }

    private static List<String> entries(java.util.SortedMap<String, String> m) {
        return m.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
    }
}
