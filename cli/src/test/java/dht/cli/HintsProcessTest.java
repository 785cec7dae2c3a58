package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.RecordLog;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hints outlive their coordinator: a replica is down while writes go through a coordinator, the
 * coordinator is killed (SIGKILL) and started again before the replica returns, and the replica
 * still receives every write it missed, from the hint files, without any read.
 */
class HintsProcessTest {
    static final int KEYS = 200;

    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    /** "404", another answer's status, or the value: what {@code n} answers with ack 1 of 3. */
    private String get(NodeProcess n, String key) {
        return cluster.requests.get(n, key, 1, 3);
    }

    private String status(NodeProcess n) throws Exception {
        return cluster.http.send(HttpRequest.newBuilder(URI.create(n.url() + "/v0/status")).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The count {@code name} of {@code peer}'s hints in {@code n}'s status, or -1 if it has none. */
    private long hintCount(NodeProcess n, NodeProcess peer, String name) throws Exception {
        Matcher m = Pattern.compile("\"hints\":\\{.*\"" + Pattern.quote(peer.url()) + "\":\\{[^}]*\"" + name + "\":(\\d+)")
                .matcher(status(n));
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /**
     * The records in {@code n}'s hint files for {@code peer}: what of its hints a SIGKILL keeps
     * (a record handed to the OS survives it; fsync matters only for the machine's crash).
     */
    private static long hintsOnDisk(NodeProcess n, NodeProcess peer) throws Exception {
        Path dir = n.data.resolve("hints").resolve(URLEncoder.encode(peer.url(), StandardCharsets.UTF_8));
        if (!Files.isDirectory(dir)) return 0;
        long records = 0;
        try (var files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".hints")).toList()) {
                records += RecordLog.read(f, e -> { }).records();
            }
        }
        return records;
    }

    private void await(String what, Duration within, java.util.concurrent.Callable<Boolean> done) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (!done.call()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    @Test
    void aReplicaGetsTheWritesItMissedFromACoordinatorKilledAndRestartedMeanwhile() throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, 3);
        NodeProcess coordinator = cluster.nodes.get(0);
        NodeProcess replica = cluster.nodes.get(2);
        assertThat(cluster.requests.write(coordinator, "gone", "x", 3, 3)).isEqualTo(201);
        replica.kill();
        for (int i = 0; i < KEYS; i++) {
            assertThat(cluster.requests.write(coordinator, "missed" + i, "m" + i, 2, 3)).isEqualTo(201);
        }
        assertThat(cluster.requests.write(coordinator, "gone", null, 2, 3)).isEqualTo(202);
        await("every missed write hinted", Duration.ofSeconds(20), () -> hintCount(coordinator, replica, "pending") == KEYS + 1);
        // Counted at once, written to the hint file later by its own thread: on a busy machine that
        // can take longer than any fixed pause, and a SIGKILL before it loses the hint.
        await("every hint in a file", Duration.ofSeconds(20), () -> hintsOnDisk(coordinator, replica) == KEYS + 1);

        coordinator.kill();
        coordinator.startAndAwait();
        assertThat(hintCount(coordinator, replica, "pending")).as("hints read back from disk").isEqualTo(KEYS + 1);
        try (var files = Files.walk(coordinator.data.resolve("hints"))) {
            assertThat(files.filter(p -> p.toString().endsWith(".hints"))).isNotEmpty();
        }

        replica.startAndAwait();
        await("hints delivered", Duration.ofSeconds(30), () -> hintCount(coordinator, replica, "delivered") == KEYS + 1);
        assertThat(hintCount(coordinator, replica, "pending")).isZero();
        await("delivered files deleted", Duration.ofSeconds(5), () -> {
            try (var files = Files.walk(coordinator.data.resolve("hints"))) {
                return files.noneMatch(p -> p.toString().endsWith(".hints"));
            }
        });

        // only the replica is left: what it answers alone is what it holds
        coordinator.kill();
        cluster.nodes.get(1).kill();
        for (int i = 0; i < KEYS; i++) assertThat(get(replica, "missed" + i)).as("missed%d", i).isEqualTo("m" + i);
        assertThat(get(replica, "gone")).as("the delete it missed").isEqualTo("404");
    }

    /**
     * The backlog's values live in the hint files, not the heap: a coordinator whose heap (64 MiB)
     * is smaller than the backlog (100 MiB) keeps every hint, SIGKILLed reads them all back, and
     * delivers them whole.
     */
    @Test
    void aBacklogLargerThanTheHeapIsKeptOnDiskAndDeliveredWhole() throws Exception {
        int keys = 400;
        int size = 256 << 10;
        NodeProcess.startCluster(cluster.nodes, tmp, 3, "-Xmx64m");
        NodeProcess coordinator = cluster.nodes.get(0);
        NodeProcess replica = cluster.nodes.get(2);
        replica.kill();
        for (int i = 0; i < keys; i++) {
            HttpRequest put = HttpRequest.newBuilder(URI.create(coordinator.url() + "/v0/entity?id=big" + i + "&ack=2&from=3"))
                    .timeout(Duration.ofSeconds(20)).PUT(HttpRequest.BodyPublishers.ofByteArray(value(i, size))).build();
            assertThat(cluster.http.send(put, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(201);
        }
        await("every missed write hinted", Duration.ofSeconds(30), () -> hintCount(coordinator, replica, "pending") == keys);
        assertThat(hintCount(coordinator, replica, "droppedFull")).isZero();
        await("every hint in a file", Duration.ofSeconds(60), () -> hintsOnDisk(coordinator, replica) == keys);

        coordinator.kill();
        coordinator.startAndAwait("-Xmx64m");
        assertThat(hintCount(coordinator, replica, "pending")).as("hints read back from disk").isEqualTo(keys);
        replica.startAndAwait("-Xmx64m");
        await("hints delivered", Duration.ofSeconds(90), () -> hintCount(coordinator, replica, "delivered") == keys);
        assertThat(hintCount(coordinator, replica, "droppedLost")).isZero();

        coordinator.kill();
        cluster.nodes.get(1).kill();
        for (int i = 0; i < keys; i++) {
            HttpResponse<byte[]> r = cluster.http.send(HttpRequest.newBuilder(
                    URI.create(replica.url() + "/v0/entity?id=big" + i + "&ack=1&from=3"))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(r.statusCode()).as("big%d", i).isEqualTo(200);
            assertThat(r.body()).as("big%d", i).isEqualTo(value(i, size));
        }
    }

    private static byte[] value(int i, int size) {
        byte[] v = new byte[size];
        for (int j = 0; j < size; j += 64) v[j] = (byte) (i + j / 64);
        v[size - 1] = (byte) i;
        return v;
    }
}
