package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.AntiEntropySettings;
import dht.node.cluster.HintSettings;
import dht.node.cluster.Placement;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A value as large as {@code --max-body} allows, which a client writes with 201, moves between
 * nodes like any other: a leave's push and anti-entropy carry it with its key and framing, past
 * the limit a client body has, and send the smaller versions before it in a batch of their own.
 * Before, the peer answered such a push 413: every repeat of the leave failed on it, the node stuck
 * leaving (a black-box tester's finding), and anti-entropy never repaired the value.
 */
class ValueAtTheBodyLimitMovesTest {
    static final int SMALL_KEYS = 100;

    @TempDir
    Path dir;
    final InProcessMembers cluster = new InProcessMembers(3);

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void antiEntropyRepairsAValueOfTheLargestSizeAClientMayWrite() throws Exception {
        try (InProcessMembers pair = new InProcessMembers(2)) {
            // exchanges run by the first node alone (the second serves its trees), so the value is pushed, not paged
            pair.startAll(i -> InProcessNodeConfigs.of(pair.ports.get(i), dir.resolve("n" + i), pair.urls, 2, null,
                    HintSettings.DEFAULTS, 0, new AntiEntropySettings(i == 0 ? Duration.ofSeconds(1) : Duration.ZERO,
                            AntiEntropySettings.DEFAULT_BYTES_PER_SECOND)));
            // written to the first node's store alone, as a coordinator would
            String first = pair.urls.get(0);
            String ts = Long.toString(System.currentTimeMillis() * 1_000);
            String kilobyte = "s".repeat(1024);
            for (int k = 0; k < SMALL_KEYS; k++) {
                assertThat(pair.send(first, "PUT", "/internal/v0/entity?id=a" + k, kilobyte, "X-Dht-Timestamp", ts).statusCode())
                        .isEqualTo(201);
            }
            String big = "b".repeat(NodeConfig.DEFAULT_MAX_BODY_BYTES);
            assertThat(pair.send(first, "PUT", "/internal/v0/entity?id=big", big, "X-Dht-Timestamp", ts).statusCode()).isEqualTo(201);

            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            String held = "";
            while (System.nanoTime() < deadline && !holdsAll(held, big, kilobyte)) {
                Thread.sleep(500);
                held = pair.send(pair.urls.get(1), "GET", "/v0/entities?scope=local&start=a&end=c", null).body();
            }
            assertThat(held.contains("big\n" + big)).as("the value on the other replica").isTrue();
            for (int k = 0; k < SMALL_KEYS; k++) assertThat(held).as("a%d", k).contains("a" + k + "\n" + kilobyte);
        }
    }

    private static boolean holdsAll(String scan, String big, String small) {
        if (!scan.contains("big\n" + big)) return false;
        for (int k = 0; k < SMALL_KEYS; k++) if (!scan.contains("a" + k + "\n" + small)) return false;
        return true;
    }

    @Test
    void aLeaveMovesAValueOfTheLargestSizeAClientMayWrite() throws Exception {
        List<String> urls = cluster.urls;
        cluster.startAll(i -> InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), urls, 2, null,
                HintSettings.DEFAULTS, 0));
        String big = "b".repeat(NodeConfig.DEFAULT_MAX_BODY_BYTES);
        assertThat(cluster.send(urls.get(0), "PUT", "/v0/entity?id=big", big).statusCode()).isEqualTo(201);
        // keys before "big": a batch that took them and then it would pass the limit
        String kilobyte = "s".repeat(1024);
        for (int k = 0; k < SMALL_KEYS; k++) {
            assertThat(cluster.send(urls.get(k % 3), "PUT", "/v0/entity?id=a" + k, kilobyte).statusCode()).isEqualTo(201);
        }
        List<String> holders = new Placement(urls).replicas("big".getBytes(StandardCharsets.UTF_8), 2);
        String leaving = holders.getFirst();
        HttpResponse<String> left = cluster.leave(leaving).get(120, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(left.statusCode()).as(left.body()).isEqualTo(200);
        cluster.nodes.get(urls.indexOf(leaving)).close(); // its process would exit now

        List<String> staying = new ArrayList<>(urls);
        staying.remove(leaving);
        for (String u : staying) {
            HttpResponse<String> local = cluster.send(u, "GET", "/v0/entities?scope=local&start=big&end=big0", null);
            assertThat(local.statusCode()).isEqualTo(200);
            assertThat(local.body().startsWith("big\n" + big)).as("the value on " + u).isTrue();
            HttpResponse<String> small = cluster.send(u, "GET", "/v0/entities?scope=local&start=a&end=b", null);
            for (int k = 0; k < SMALL_KEYS; k++) assertThat(small.body()).as("a%d on %s", k, u).contains("a" + k + "\n" + kilobyte);
        }
    }
}
