package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.HintSettings;
import dht.node.cluster.Placement;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four real nodes in-process, three copies of each key, anti-entropy off, pushes paced at 1 MiB/s:
 * a dead member is removed, and a survivor stopped while it re-creates the copies the dead one
 * held. Started again, it goes on with the push where it was (the keys before its kept progress
 * are not sent again), so every key ends on all three that stay, with no read and no anti-entropy
 * to repair it.
 */
class RemovalPushAfterARestartTest {
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

    /** What {@code url} pushed: it may also take in what the other survivors push. */
    private long sent(String url) throws Exception {
        return cluster.field(url, "keysMoved") - cluster.field(url, "keysMovedIn");
    }

    @Test
    void aSurvivorStoppedMidPushPushesAgainWhenItStarts() throws Exception {
        List<String> urls = cluster.urls;
        cluster.startAll(this::config);
        cluster.write(KEYS, k -> VALUE + k);
        String dead = urls.get(3);
        String pusher = urls.get(0);
        // what the first node is to push: the keys it is the first surviving replica of
        Placement before = new Placement(urls);
        int owed = 0;
        for (int k = 0; k < KEYS; k++) {
            List<String> r = new ArrayList<>(before.replicas(("key" + k).getBytes(StandardCharsets.UTF_8), 3));
            if (r.remove(dead) && r.getFirst().equals(pusher)) owed++;
        }
        assertThat(owed).as("keys the first node pushes").isGreaterThan(100);
        cluster.nodes.get(3).close();

        HttpResponse<String> removed = cluster.removeOnceDown(pusher, dead);
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Path progress = dir.resolve("n0").resolve("push-progress");
        while (!Files.exists(progress) && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(progress).as("the push's progress, kept").exists();
        long moved = sent(pusher);
        cluster.nodes.get(0).close();
        assertThat(moved).as("keys pushed before the stop").isPositive().isLessThan(owed);
        assertThat(Files.exists(dir.resolve("n0").resolve("removal-pending"))).as("the push marked owed").isTrue();

        cluster.restart(0, config(0));
        assertThat(cluster.lackingAfter(Duration.ofSeconds(60), urls.subList(0, 3), KEYS, k -> VALUE + k))
                .as("copies not re-created").isEmpty();
        assertThat(Files.exists(dir.resolve("n0").resolve("removal-pending"))).as("the mark, once pushed").isFalse();
        assertThat(sent(pusher)).as("keys pushed after the restart: not those before the kept progress")
                .isPositive().isLessThan(owed);
        assertThat(progress).as("the progress, once the push is done").doesNotExist();
    }
}
