package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node with {@code -Xmx128m} holding 200 values of 8 MiB in several tables, scanned whole by 8
 * clients at once (docs/design.md, "Bounded scans"): every scan is complete with the right bytes,
 * or refused with {@code 503} and {@code Retry-After}, or cut off without its terminating chunk;
 * the node never runs out of memory and still serves reads and writes afterwards.
 */
class LargeScansProcessTest {
    private static final int KEYS = 200;
    private static final int VALUE_BYTES = 8 << 20;
    private static final int CLIENTS = 8;

    @TempDir
    Path tmp;

    private NodeProcess node;
    private final LongAdder refusedPuts = new LongAdder();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    @AfterEach
    void stop() throws Exception {
        if (node != null) node.close();
    }

    private static String key(int i) {
        return String.format("k%03d", i);
    }

    /**
     * The value of key {@code i}: random bytes for even keys (stored raw), a compressible pattern
     * for odd ones (which a table written with lz4 would compress), so both kinds of block are scanned.
     */
    private static byte[] value(int i) {
        byte[] v = new byte[VALUE_BYTES];
        if (i % 2 == 0) {
            new SplittableRandom(i).nextBytes(v);
        } else {
            byte[] line = ("value of " + key(i) + " with some repeated text to compress\n").getBytes(StandardCharsets.US_ASCII);
            for (int p = 0; p < v.length; p++) v[p] = line[p % line.length];
        }
        return v;
    }

    private static long crc(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }

    @Test
    void concurrentScansOfLargeValuesCompleteOrAreRefusedWithoutExhaustingTheHeap() throws Exception {
        // A small memtable: the 200 values go to disk in many flushes, so the scan merges several tables.
        node = new NodeProcess(TestPorts.free(), tmp.resolve("d"), List.of("--memtable-size", "67108864")).startAndAwait();
        long t0 = System.nanoTime();
        long[] crcs = new long[KEYS];
        AtomicInteger nextKey = new AtomicInteger();
        List<Thread> writers = new ArrayList<>();
        List<String> writeFailures = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger written = new AtomicInteger();
        for (int w = 0; w < 4; w++) {
            writers.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int i; (i = nextKey.getAndIncrement()) < KEYS; ) {
                        byte[] v = value(i);
                        crcs[i] = crc(v);
                        put(key(i), v);
                        written.incrementAndGet();
                    }
                } catch (Throwable t) {
                    writeFailures.add(t.toString());
                }
            }));
        }
        for (Thread t : writers) t.join();
        assertThat(writeFailures).as("PUTs that failed").isEmpty();
        assertThat(written.get()).as("values written").isEqualTo(KEYS);

        long t1 = System.nanoTime();
        Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            clients.add(Thread.ofPlatform().start(() -> {
                try {
                    String outcome = scan(crcs);
                    outcomes.computeIfAbsent(outcome, o -> new LongAdder()).increment();
                } catch (Throwable t) {
                    failures.add(t.toString());
                    System.out.println("large scans: a scan went wrong: " + t);
                }
            }));
        }
        for (Thread t : clients) t.join();
        System.out.printf("large scans: %d values of %d bytes written in %d ms (%d PUTs refused and retried); "
                        + "%d concurrent scans in %d ms: %s%n", KEYS, VALUE_BYTES, (t1 - t0) / 1_000_000, refusedPuts.sum(),
                CLIENTS, (System.nanoTime() - t1) / 1_000_000, outcomes);

        String output = node.output();
        // The failures first: a CI report keeps only the start of a long message.
        assertThat(failures).as("scans that went wrong (outcomes of the others %s, node alive %s); the node's warnings and last lines:%n%s",
                outcomes, node.process().isAlive(), digest(output)).isEmpty();
        assertThat(outcomes.keySet()).as("outcomes").isSubsetOf("complete", "refused", "truncated");
        assertThat(output).doesNotContain("OutOfMemoryError");
        assertThat(node.process().isAlive()).isTrue();

        // The node still serves: a write, and reads of a large value and of the new one.
        byte[] small = "still here".getBytes(StandardCharsets.US_ASCII);
        put("after", small);
        HttpResponse<byte[]> got = http.send(HttpRequest.newBuilder(uri("/v0/entity?id=after")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.body()).isEqualTo(small);
        got = http.send(HttpRequest.newBuilder(uri("/v0/entity?id=" + key(7))).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(crc(got.body())).isEqualTo(crcs[7]);
        // With nothing else in flight a scan is served, whole.
        assertThat(scan(crcs)).as("a scan alone").isEqualTo("complete");
        assertThat(node.output()).doesNotContain("OutOfMemoryError");
    }

    /**
     * PUTs until the node takes it. A 503 is retried (the node is flushing); so is a connection
     * the node closed while the body was still coming: it refuses a large body with 503 without
     * reading all of it, and the client, still sending, may see the reset rather than the answer.
     */
    private void put(String key, byte[] value) throws InterruptedException {
        for (int attempt = 0; ; attempt++) {
            if (attempt > 200) throw new AssertionError("PUT " + key + ": still refused after " + attempt + " attempts");
            try {
                int status = http.send(HttpRequest.newBuilder(uri("/v0/entity?id=" + key))
                        .PUT(HttpRequest.BodyPublishers.ofByteArray(value)).timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status == 201) return;
                if (status != 503) throw new AssertionError("PUT " + key + ": " + status);
            } catch (java.net.http.HttpTimeoutException e) {
                throw new AssertionError("PUT " + key + ": " + e, e);
            } catch (IOException e) {
                // the refused body's connection closed under the client: retried like a 503
            }
            refusedPuts.increment();
            Thread.sleep(100);
        }
    }

    /**
     * Scans all the keys over a socket of its own, reading the chunks (one per entry) as they come
     * and checking each value's checksum: "complete", "refused" (503 with Retry-After) or
     * "truncated" (the connection ended before the terminating chunk, after the right entries).
     */
    private String scan(long[] crcs) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("localhost", node.port), 2000);
            s.setSoTimeout(60_000);
            s.getOutputStream().write(("GET /v0/entities?start=k&end=l HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = new BufferedInputStream(s.getInputStream(), 1 << 16);
            String status = line(in);
            List<String> headers = new ArrayList<>();
            for (String h; !(h = line(in)).isEmpty(); ) headers.add(h.toLowerCase(java.util.Locale.ROOT));
            if (status.startsWith("HTTP/1.1 503")) {
                assertThat(headers).as("headers of a refused scan").anyMatch(h -> h.startsWith("retry-after:"));
                return "refused";
            }
            assertThat(status).startsWith("HTTP/1.1 200");
            assertThat(headers).contains("transfer-encoding: chunked");
            int i = 0;
            byte[] buf = new byte[1 << 16];
            while (true) {
                String sizeLine;
                try {
                    sizeLine = line(in);
                } catch (EOFException e) {
                    return "truncated";
                }
                int size = Integer.parseInt(sizeLine.trim(), 16);
                if (size == 0) {
                    assertThat(i).as("entries in a complete scan").isEqualTo(KEYS);
                    return "complete";
                }
                assertThat(i).as("entries").isLessThan(KEYS);
                byte[] expectKey = (key(i) + "\n").getBytes(StandardCharsets.US_ASCII);
                byte[] gotKey = in.readNBytes(expectKey.length);
                if (gotKey.length < expectKey.length) return "truncated";
                assertThat(new String(gotKey, StandardCharsets.US_ASCII)).isEqualTo(new String(expectKey, StandardCharsets.US_ASCII));
                int left = size - expectKey.length;
                assertThat(left).as("value length of %s", key(i)).isEqualTo(VALUE_BYTES);
                CRC32C crc = new CRC32C();
                while (left > 0) {
                    int n = in.read(buf, 0, Math.min(buf.length, left));
                    if (n < 0) return "truncated";
                    crc.update(buf, 0, n);
                    left -= n;
                }
                assertThat(crc.getValue()).as("checksum of %s", key(i)).isEqualTo(crcs[i]);
                if (in.read() < 0 || in.read() < 0) return "truncated"; // the chunk's CRLF
                i++;
            }
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) throw new EOFException();
            if (c != '\r') b.write(c);
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    /** The node's WARN and ERROR lines (at most 40) and its last 20 lines: what explains a failure. */
    private static String digest(String output) {
        List<String> lines = output.lines().toList();
        List<String> warnings = lines.stream().filter(l -> l.contains(" WARN ") || l.contains(" ERROR ") || l.contains("Exception"))
                .limit(40).toList();
        List<String> last = lines.subList(Math.max(0, lines.size() - 20), lines.size());
        return String.join("\n", warnings) + "\n...\n" + String.join("\n", last);
    }

    private URI uri(String path) {
        return URI.create(node.url() + path);
    }
}
