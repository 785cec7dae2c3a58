package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.ReadBudget;
import dht.storage.ReadBudgetExceededException;
import dht.storage.Store;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scans of values larger than a batch, which go out in pieces read in place (still one chunk per
 * entry on the public scan), and scans the scan memory budget refuses: 503 with Retry-After
 * before the first entry, a stream cut off without its last chunk after it.
 */
class LargeScanTest {
    @TempDir
    Path dir;

    private static String text(int length, char seed) {
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) sb.append((char) ('a' + (i * 7 + seed) % 26));
        return sb.toString();
    }

    @Test
    void largeValuesAreStreamedWholeOneChunkPerEntry() throws Exception {
        String[] keys = {"a", "b", "c", "d", "e"};
        String[] values = {"small", text(300 << 10, 'b'), text(64 << 10, 'c'), "", text(1 << 20, 'e')};
        try (TestNode node = TestNode.start(dir)) {
            for (int i = 0; i < keys.length; i++) {
                assertThat(node.put("/v0/entity?id=" + keys[i], values[i]).statusCode()).isEqualTo(201);
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < keys.length; i++) expected.add(keys[i] + "\n" + values[i]);
            try (RawHttp c = new RawHttp(node.node.port())) {
                c.send("GET /v0/entities?start=a HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(ScanTest.chunks(c)).containsExactlyElementsOf(expected);
                // The connection is still in step: a second scan on it, and a GET.
                c.send("GET /v0/entities?start=e HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(ScanTest.chunks(c)).containsExactly(expected.getLast());
                c.send("GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(c.read().text()).isEqualTo("small");
            }

            HttpResponse<byte[]> r = node.get("/internal/v0/entities?start=a");
            assertThat(r.statusCode()).isEqualTo(200);
            DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(r.body()));
            for (int i = 0; i < keys.length; i++) {
                assertThat(in.readByte()).isZero();
                in.readLong();
                assertThat(new String(in.readNBytes(in.readInt()), StandardCharsets.UTF_8)).isEqualTo(keys[i]);
                assertThat(new String(in.readNBytes(in.readInt()), StandardCharsets.UTF_8)).isEqualTo(values[i]);
            }
            assertThat(in.available()).isZero();
        }
    }

    /** A store whose borrowing scan yields {@code good} entries, then finds its budget exhausted. */
    private static Store refusingAfter(Store inner, int good) {
        return new DelegatingStore(inner) {
            @Override
            public CloseableIterator<Entry> scan(byte[] from, byte[] to, ReadBudget budget) throws IOException {
                CloseableIterator<Entry> it = inner.scan(from, to, budget);
                return new CloseableIterator<>() {
                    int n;

                    @Override
                    public boolean hasNext() {
                        if (n >= good) throw new UncheckedIOException(new ReadBudgetExceededException(1 << 20));
                        return it.hasNext();
                    }

                    @Override
                    public Entry next() {
                        hasNext();
                        n++;
                        return it.next();
                    }

                    @Override
                    public void close() {
                        it.close();
                    }
                };
            }
        };
    }

    @Test
    void aScanTheBudgetRefusesBeforeItsFirstEntryIs503WithRetryAfter() throws Exception {
        try (TestNode node = TestNode.start(TestNode.config(dir), s -> refusingAfter(s, 0))) {
            node.put("/v0/entity?id=k", "v");
            try (RawHttp c = new RawHttp(node.node.port())) {
                c.send("GET /v0/entities?start=a HTTP/1.1\r\nHost: x\r\n\r\n");
                RawHttp.Response r = c.read();
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.header("retry-after")).isNotNull();
                // The connection goes on: the node answers the next request on it.
                c.send("GET /v0/entity?id=k HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(c.read().text()).isEqualTo("v");
            }
            assertThat(ScanTest.waitUntil(() -> new String(ScanTest.getStatus(node)).contains("\"scans\":0"))).isTrue();
        }
    }

    @Test
    void aScanTheBudgetRefusesMidwayIsCutOffWithoutItsLastChunk() throws Exception {
        try (TestNode node = TestNode.start(TestNode.config(dir), s -> refusingAfter(s, 2))) {
            // Values of more than a batch: the head and the first entries go out before the refusal.
            String value = text(40 << 10, 'v');
            for (String k : new String[] {"a", "b", "c", "d"}) node.put("/v0/entity?id=" + k, value);
            try (RawHttp c = new RawHttp(node.node.port())) {
                c.send("GET /v0/entities?start=a HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(ScanTest.chunks(c)).containsExactly("a\n" + value, "b\n" + value, null);
            }
            assertThat(node.get("/v0/entity?id=d").statusCode()).isEqualTo(200);
        }
    }
}
