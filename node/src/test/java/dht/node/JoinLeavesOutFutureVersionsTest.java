package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import dht.storage.LsmStore;
import dht.storage.StoreOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A joiner keeps no version stamped beyond the max clock offset of its clock: such a version (left
 * by a member whose clock was ahead) would outrank every write made meanwhile, and once in the
 * joiner's store it makes the joiner, restarted, refuse client writes as a node whose clock went
 * back ({@code HybridLogicalClock#startFrom}). Three in-process members hold every key, each an
 * hour ahead in their stores; a fourth joins, is restarted, and takes writes.
 */
class JoinLeavesOutFutureVersionsTest {
    @TempDir
    Path dir;
    private final InProcessMembers cluster = new InProcessMembers(4); // the fourth joins

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void aJoinerLeavesOutVersionsFromBeyondTheMaxOffsetAndTakesWritesAfterARestart() throws Exception {
        List<String> urls = cluster.urls.subList(0, 3);
        long hourAhead = (System.currentTimeMillis() + 3_600_000L) * 1_000L;
        for (int i = 0; i < 3; i++) {
            try (LsmStore s = LsmStore.open(dir.resolve("n" + i), StoreOptions.defaults())) {
                for (int k = 0; k < 50; k++) s.write(List.of(Entry.value(("k" + k).getBytes(StandardCharsets.UTF_8),
                        "ahead".getBytes(StandardCharsets.UTF_8), hourAhead)));
            }
        }
        for (int i = 0; i < 3; i++) {
            cluster.nodes.add(Node.start(InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), urls, 3, null)));
        }

        int port = cluster.ports.get(3);
        String joiner = cluster.urls.get(3);
        cluster.nodes.add(Node.start(InProcessNodeConfigs.of(port, dir.resolve("joiner"), List.of(joiner), 0, urls.getFirst())));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        boolean joined = false;
        while (!joined && System.nanoTime() < deadline) {
            Thread.sleep(250);
            String s = cluster.send(joiner, "GET", "/v0/status", null).body();
            joined = s.contains("\"membershipVersion\":3") && s.contains("\"rebalancing\":false");
        }
        assertThat(joined).as("joined").isTrue();
        assertThat(cluster.send(joiner, "GET", "/v0/entities?scope=local&start=k&end=l", null).body())
                .as("no version from an hour ahead kept").isEmpty();

        cluster.nodes.get(3).close();
        cluster.restart(3, InProcessNodeConfigs.of(port, dir.resolve("joiner"), List.of(joiner), 0, null));
        // Before, the joiner kept those versions and, restarted, refused this as a clock gone back.
        assertThat(cluster.send(joiner, "PUT", "/v0/entity?id=fresh&ack=1", "v").statusCode()).isEqualTo(201);
    }
}
