package dht.cli;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import dht.client.DhtClient;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract's durability clause on a real node process: a torn log tail and a flipped byte in
 * a table are detected, every entry that can be proven intact is kept, and damaged bytes are never
 * served as a value.
 */
class DamagedFilesProcessTest {
    private static final int KEYS = 400;

    @TempDir
    Path tmp;

    private NodeProcess node;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @AfterEach
    void stop() throws Exception {
        if (node != null) node.close();
    }

    private static String value(int i) {
        return "value-" + i + "-" + "x".repeat(100);
    }

    /** Writes every key through the client (a failed PUT throws); reads stay raw, for their statuses. */
    private void fill() {
        try (DhtClient client = DhtClient.create(node.url())) {
            for (int i = 0; i < KEYS; i++) client.put("key" + i, value(i));
        }
    }

    private HttpResponse<String> get(int i) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(node.url() + "/v0/entity?id=key" + i))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private List<Path> files(String suffix) throws IOException {
        try (Stream<Path> s = Files.list(node.data)) {
            return s.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        }
    }

    private static void flip(Path file, long offset) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            int b = f.read();
            f.seek(offset);
            f.write(b ^ 0xff);
        }
    }

    @Test
    void tornLogTailKeepsEveryAcknowledgedWrite() throws Exception {
        node = new NodeProcess(TestPorts.free(), tmp.resolve("d"), List.of()).startAndAwait();
        fill();
        node.kill();
        // A write torn by the crash: half a record of garbage at the end of the newest log.
        Path log = files(".log").getLast();
        Files.write(log, new byte[] {0x13, 0x37, 0x00, 0x7f, 0x11, 0x22, 0x33}, java.nio.file.StandardOpenOption.APPEND);

        node.startAndAwait();
        for (int i = 0; i < KEYS; i++) {
            HttpResponse<String> r = get(i);
            assertThat(r.statusCode()).as("key%d after a torn log tail", i).isEqualTo(200);
            assertThat(r.body()).isEqualTo(value(i));
        }
    }

    /** Replay resumes at the next 32 KiB block of the log: a flipped byte costs the rest of its block at most. */
    @Test
    void aFlippedByteInTheMiddleOfALogLosesOneBlockOfWritesAtMost() throws Exception {
        node = new NodeProcess(TestPorts.free(), tmp.resolve("d"), List.of()).startAndAwait();
        fill();
        node.kill();
        Path log = files(".log").getLast();
        flip(log, Files.size(log) / 2);

        node.startAndAwait();
        int lost = 0;
        for (int i = 0; i < KEYS; i++) {
            HttpResponse<String> r = get(i);
            if (r.statusCode() == 404) {
                lost++;
                continue;
            }
            assertThat(r.statusCode()).as("key%d", i).isEqualTo(200);
            assertThat(r.body()).isEqualTo(value(i));
        }
        assertThat(lost).as("writes lost to one flipped byte").isLessThanOrEqualTo(32 * 1024 / value(0).length());
        assertThat(node.output()).contains("DAMAGED");
        assertThat(files(".log.corrupt")).hasSize(1);
    }

    /**
     * The newest writes, all in the log's last block: a byte flipped in one record's value loses
     * that write alone, and is damage (reported, the log kept), not a crash's torn tail.
     */
    @Test
    void aFlippedByteAmongTheNewestWritesLosesThatWriteOnly() throws Exception {
        node = new NodeProcess(TestPorts.free(), tmp.resolve("d"), List.of()).startAndAwait();
        try (DhtClient client = DhtClient.create(node.url())) {
            for (int i = 0; i < 50; i++) client.put("key" + i, value(i));
        }
        node.kill();
        Path log = files(".log").getLast();
        byte[] bytes = Files.readAllBytes(log);
        int at = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf(value(10));
        assertThat(at).as("key10's value in the log").isPositive();
        flip(log, at + 20);

        node.startAndAwait();
        for (int i = 0; i < 50; i++) {
            HttpResponse<String> r = get(i);
            if (i == 10) {
                assertThat(r.statusCode()).as("the damaged write").isEqualTo(404);
            } else {
                assertThat(r.statusCode()).as("key%d", i).isEqualTo(200);
                assertThat(r.body()).isEqualTo(value(i));
            }
        }
        assertThat(node.output()).contains("DAMAGED: checksum mismatch");
        assertThat(files(".log.corrupt")).hasSize(1);
    }

    @Test
    void flippedByteInATableIsDetectedAndNeverServed() throws Exception {
        node = new NodeProcess(TestPorts.free(), tmp.resolve("d"), List.of()).startAndAwait();
        fill();
        assertThat(node.terminate(Duration.ofSeconds(10))).isZero(); // graceful: everything is in a table now
        assertThat(verify().exitCode()).as("verify before the damage").isZero();
        Path table = files(".sst").getFirst();
        flip(table, 100); // inside the first data block

        node.startAndAwait();
        // found by verify, beside the running node, before any read needed the block
        DhtRun v = verify();
        assertThat(v.exitCode()).as("verify: %s%s", v.stdout(), v.stderr()).isEqualTo(1);
        assertThat(v.stdout()).contains("DAMAGED  " + table.getFileName()).contains("checksum mismatch").contains("1 damaged");
        int served = 0;
        for (int i = 0; i < KEYS; i++) {
            HttpResponse<String> r = get(i);
            if (r.statusCode() == 200) {
                assertThat(r.body()).as("key%d is served only with its true value", i).isEqualTo(value(i));
                served++;
            } else {
                assertThat(r.statusCode()).as("a damaged key is an error, not absent").isNotEqualTo(404);
            }
        }
        assertThat(served).as("keys outside the damaged block are still served").isGreaterThan(KEYS / 2).isLessThan(KEYS);
        assertThat(node.output()).contains("corruption in").contains(table.getFileName().toString());
        // Every key of the damaged block failed, yet the damage is one line, not one per read.
        assertThat(node.output().split("corruption in", -1)).as("damage lines").hasSize(2);

        // A scan over the damaged block is not a complete-looking 200 that silently lacks entries.
        HttpResponse<String> scan = http.send(HttpRequest.newBuilder(URI.create(node.url() + "/v0/entities?start=key"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(scan.statusCode()).isEqualTo(500);
        assertThat(scan.body()).contains("corruption");
    }

    /**
     * The table's footer carries only where its regions start: every entry is still in a data block
     * under its own checksum, so a flipped footer byte costs no entry. The node rebuilds the table
     * at start, keeps the damaged file aside and says so in the log.
     */
    @Test
    void flippedByteInATableFooterCostsNoEntry() throws Exception {
        node = new NodeProcess(TestPorts.free(), tmp.resolve("d"), List.of()).startAndAwait();
        fill();
        assertThat(node.terminate(Duration.ofSeconds(10))).isZero();
        Path table = files(".sst").getFirst();
        flip(table, Files.size(table) - 20); // in the footer (its entry count), under the footer checksum

        node.startAndAwait();
        for (int i = 0; i < KEYS; i++) {
            HttpResponse<String> r = get(i);
            assertThat(r.statusCode()).as("key%d after a flipped footer byte", i).isEqualTo(200);
            assertThat(r.body()).isEqualTo(value(i));
        }
        assertThat(node.output()).contains("corruption in").contains("salvaged " + KEYS + " entries");
        assertThat(files(".corrupt")).containsExactly(table.resolveSibling(table.getFileName() + ".corrupt"));
        DhtRun v = verify();
        assertThat(v.exitCode()).as("the rebuilt table is intact").isZero();
        assertThat(v.stdout()).contains(table.getFileName() + ".corrupt: set aside").contains("every checksum held");
    }

    /** Without a MANIFEST: not a directory, tables the store refuses, a first start's logs, or nothing of a store. */
    @Test
    void verifyTellsWhatADirectoryWithoutAManifestIs() throws Exception {
        Path d = Files.createDirectories(tmp.resolve("d"));
        assertThat(verify()).satisfies(v -> {
            assertThat(v.exitCode()).isEqualTo(1);
            assertThat(v.stderr()).contains("holds no MANIFEST: not a data directory");
        });
        Files.write(d.resolve("000001.log"), new byte[0]);
        assertThat(verify()).satisfies(v -> {
            assertThat(v.exitCode()).as("a first start's logs: nothing to check").isZero();
            assertThat(v.stdout()).contains("holds write-ahead logs and no table yet");
        });
        Files.write(d.resolve("000002.sst"), new byte[0]);
        assertThat(verify()).satisfies(v -> {
            assertThat(v.exitCode()).isEqualTo(1);
            assertThat(v.stderr()).contains("holds tables but no MANIFEST").contains("refuses to start");
        });
        DhtRun missing = DhtRun.of(Duration.ofSeconds(60), "verify", "--data", tmp.resolve("nowhere").toString());
        assertThat(missing.exitCode()).isEqualTo(1);
        assertThat(missing.stderr()).contains(tmp.resolve("nowhere") + " does not exist");
        Files.write(tmp.resolve("file"), new byte[0]);
        DhtRun v = DhtRun.of(Duration.ofSeconds(60), "verify", "--data", tmp.resolve("file").toString());
        assertThat(v.exitCode()).isEqualTo(1);
        assertThat(v.stderr()).contains("is not a directory");
    }

    private DhtRun verify() throws Exception {
        return DhtRun.of(Duration.ofSeconds(60), "verify", "--data", tmp.resolve("d").toString());
    }
}
