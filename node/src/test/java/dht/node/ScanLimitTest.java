package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code limit=N} on a single node's scans (its LSM store, the real cluster layer): the first N
 * live entries of the range in key order, deleted and expired keys not counted, a complete chunked
 * answer; a bad limit is a 400 before anything is streamed. The internal stream counts values only.
 */
class ScanLimitTest {
    @TempDir
    static Path dir;
    static Node node;
    static TestNodeClient http;

    @BeforeAll
    static void start() throws Exception {
        node = Node.start(NodeConfig.single(TestPorts.free(), dir));
        http = new TestNodeClient(node.port());
        for (String k : List.of("a", "b", "c", "d", "e", "f", "g")) http.expect(201, "PUT", "/v0/entity?id=" + k, "v-" + k);
        // deleted keys between live ones, and one whose value expires
        http.expect(202, "DELETE", "/v0/entity?id=b", null);
        http.expect(202, "DELETE", "/v0/entity?id=c", null);
        http.expect(202, "DELETE", "/v0/entity?id=f", null);
        http.expect(201, "PUT", "/v0/entity?id=d0&ttl=1", "expires");
        Thread.sleep(1_200);
    }

    @AfterAll
    static void stop() {
        if (node != null) node.close();
    }

    /** The keys of a scan's entries; the answer must be a complete chunked 200. */
    private static List<String> keys(String query) throws IOException {
        try (RawHttp c = new RawHttp(node.port())) {
            c.send("GET /v0/entities?" + query + " HTTP/1.1\r\nHost: x\r\n\r\n");
            List<String> chunks = ScanTest.chunks(c);
            assertThat(chunks).as("complete answer to %s", query).doesNotContainNull();
            return chunks.stream().map(e -> e.substring(0, e.indexOf('\n'))).toList();
        }
    }

    @Test
    void aLimitedScanReturnsTheFirstLiveEntriesSkippingDeletedAndExpiredOnes() throws Exception {
        assertThat(keys("start=a")).containsExactly("a", "d", "e", "g");
        assertThat(keys("start=a&limit=1")).containsExactly("a");
        assertThat(keys("start=a&limit=2")).containsExactly("a", "d");
        assertThat(keys("start=a&limit=3")).containsExactly("a", "d", "e");
        assertThat(keys("start=b&limit=2")).containsExactly("d", "e");
        assertThat(keys("start=b&end=e&limit=2")).containsExactly("d");
        assertThat(keys("start=a&end=g&limit=3")).containsExactly("a", "d", "e");
    }

    @Test
    void aLimitLargerThanTheRangeReturnsTheWholeRange() throws Exception {
        assertThat(keys("start=a&limit=4")).containsExactly("a", "d", "e", "g");
        assertThat(keys("start=a&limit=100")).containsExactly("a", "d", "e", "g");
        assertThat(keys("start=a&limit=2147483647")).containsExactly("a", "d", "e", "g");
        assertThat(keys("start=e&end=h&limit=10")).containsExactly("e", "g");
        assertThat(keys("start=zz&limit=10")).isEmpty();
        assertThat(keys("start=e&end=a&limit=10")).isEmpty();
    }

    @Test
    void bothScopesTakeTheLimit() throws Exception {
        assertThat(keys("start=b&limit=2&scope=local")).containsExactly("d", "e");
        assertThat(keys("start=b&limit=2&scope=cluster")).containsExactly("d", "e");
    }

    @Test
    void theConnectionServesTheNextRequestAfterALimitedScan() throws Exception {
        try (RawHttp c = new RawHttp(node.port())) {
            c.send("GET /v0/entities?start=a&limit=1 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /v0/entities?start=e&limit=5 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /v0/entity?id=g HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(ScanTest.chunks(c)).containsExactly("a\nv-a");
            assertThat(ScanTest.chunks(c)).containsExactly("e\nv-e", "g\nv-g");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("v-g");
        }
    }

    @Test
    void aBadLimitIsA400AndNothingIsStreamed() throws Exception {
        for (String bad : List.of("0", "-1", "+1", "1.5", "1e3", "abc", "", " 1", "2147483648", "99999999999",
                "00000000001x")) {
            for (String path : List.of("/v0/entities", "/internal/v0/entities")) {
                String target = path + "?start=a&limit=" + bad.replace(" ", "%20");
                try (RawHttp c = new RawHttp(node.port())) {
                    c.send("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n");
                    RawHttp.Response r = c.read();
                    assertThat(r.status()).as(target).isEqualTo(400);
                    assertThat(r.header("transfer-encoding")).as(target).isNull();
                    assertThat(r.text()).as(target).contains("'limit' must be a positive integer");
                }
            }
        }
        RawHttp.Response twice = http.raw("GET", "/v0/entities?start=a&limit=1&limit=2");
        assertThat(twice.status()).isEqualTo(400);
        assertThat(twice.text()).contains("'limit'").contains("more than once");
    }

    /** The internal stream's records: key, with "(deleted)" after a tombstone's. */
    private static List<String> records(byte[] body) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(body));
        List<String> out = new ArrayList<>();
        while (in.available() > 0) {
            int flags = in.readUnsignedByte();
            in.readLong();
            if ((flags & 2) != 0) in.readLong();
            String key = new String(in.readNBytes(in.readInt()), StandardCharsets.UTF_8);
            in.readNBytes(in.readInt());
            out.add(key + ((flags & 1) != 0 ? "(deleted)" : ""));
        }
        return out;
    }

    @Test
    void theInternalStreamCountsValuesNotTombstones() throws Exception {
        RawHttp.Response all = http.raw("GET", "/internal/v0/entities?start=a");
        assertThat(all.complete()).isTrue();
        assertThat(records(all.body())).containsExactly("a", "b(deleted)", "c(deleted)", "d", "d0(deleted)", "e",
                "f(deleted)", "g");

        RawHttp.Response two = http.raw("GET", "/internal/v0/entities?start=a&limit=2");
        assertThat(two.status()).isEqualTo(200);
        assertThat(two.complete()).isTrue();
        assertThat(records(two.body())).containsExactly("a", "b(deleted)", "c(deleted)", "d");

        RawHttp.Response three = http.raw("GET", "/internal/v0/entities?start=b&end=g&limit=3");
        assertThat(records(three.body())).containsExactly("b(deleted)", "c(deleted)", "d", "d0(deleted)", "e",
                "f(deleted)");
        assertThat(records(http.raw("GET", "/internal/v0/entities?limit=1").body())).containsExactly("a");
    }

    /** Plain requests, each on a connection of its own. */
    static final class TestNodeClient {
        private final int port;

        TestNodeClient(int port) {
            this.port = port;
        }

        RawHttp.Response raw(String method, String target) throws IOException {
            return raw(method, target, null);
        }

        RawHttp.Response raw(String method, String target, String body) throws IOException {
            try (RawHttp c = new RawHttp(port)) {
                byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
                c.send(method + " " + target + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + b.length + "\r\n\r\n");
                c.send(b);
                return c.read();
            }
        }

        void expect(int status, String method, String target, String body) throws IOException {
            RawHttp.Response r = raw(method, target, body);
            assertThat(r.status()).as("%s %s: %s", method, target, r.text()).isEqualTo(status);
        }
    }
}
