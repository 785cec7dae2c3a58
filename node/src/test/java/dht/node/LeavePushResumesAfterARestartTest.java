package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.HintSettings;
import dht.node.cluster.Placement;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four real nodes in-process, three copies of each key, anti-entropy off, pushes paced at 1 MiB/s:
 * a leaving node stopped mid-push and started again goes on with its push where it was (the keys
 * before its kept progress are not sent again), and once the repeated leave ends every key is on
 * all three that stay.
 */
class LeavePushResumesAfterARestartTest {
    static final int KEYS = 1200;
    static final String VALUE = "v".repeat(10_000);

    @TempDir
    Path dir;
    final InProcessMembers cluster = new InProcessMembers(4);

    @AfterEach
    void stop() {
        cluster.close();
    }

    private NodeConfig config(int i) {
        return InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), cluster.urls, 3, null, HintSettings.DEFAULTS,
                1 << 20);
    }

    @Test
    void aLeaveStoppedMidPushResumesWhereItWasWhenRepeated() throws Exception {
        List<String> urls = cluster.urls;
        cluster.startAll(this::config);
        cluster.write(KEYS, k -> VALUE + k);
        String leaving = urls.get(3);
        // each key the leaving node holds goes to the one node that is not yet its replica
        Placement before = new Placement(urls);
        int owed = 0;
        for (int k = 0; k < KEYS; k++) {
            if (before.replicas(("key" + k).getBytes(StandardCharsets.UTF_8), 3).contains(leaving)) owed++;
        }
        assertThat(owed).as("keys the leaving node pushes").isGreaterThan(500);

        CompletableFuture<HttpResponse<String>> first = cluster.leave(leaving);
        Path progress = dir.resolve("n3").resolve("push-progress");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!Files.exists(progress) && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(progress).as("the push's progress, kept").exists();
        long movedBefore = cluster.field(leaving, "keysMoved");
        cluster.nodes.get(3).close();
        int cutShort = first.handle((r, x) -> r == null ? -1 : r.statusCode()).get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(cutShort).as("the leave, cut short (no answer, or a refusal)").isNotEqualTo(200);
        assertThat(movedBefore).as("keys pushed before the stop").isPositive().isLessThan(owed);

        cluster.restart(3, config(3));
        HttpResponse<String> left = cluster.leave(leaving).get(120, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(left.statusCode()).as(left.body()).isEqualTo(200);
        long movedAfter = cluster.field(leaving, "keysMoved");
        cluster.nodes.get(3).close(); // its process would exit now
        assertThat(movedAfter).as("keys pushed after the restart: not those before the kept progress").isPositive()
                .isLessThan(owed);
        assertThat(progress).as("the progress, once the push is done").doesNotExist();
        assertThat(cluster.lackingAfter(Duration.ofSeconds(30), urls.subList(0, 3), KEYS, k -> VALUE + k))
                .as("keys not on all three that stay").isEmpty();
    }
}
