package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.HintSettings;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rebalancing} is true while data a node sends or receives still moves: during a leave,
 * on the members that receive the leaving node's keys too, not only on the leaving node; and
 * false on every member once the leave is done. Before, the receivers showed false throughout.
 */
class LeaveReceiversRebalancingTest {
    static final int KEYS = 600;
    static final String PAD = "r".repeat(5_000);

    @TempDir
    Path dir;
    final InProcessMembers cluster = new InProcessMembers(4);

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void theMembersThatReceiveALeavingNodesKeysShowRebalancingUntilTheLeaveEnds() throws Exception {
        List<String> urls = cluster.urls;
        // 1 MiB/s: the leave pushes about a quarter of 3 MB, so it takes a second or more
        cluster.startAll(i -> InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), urls, 3, null,
                HintSettings.DEFAULTS, 1L << 20));
        for (int k = 0; k < KEYS; k++) {
            assertThat(cluster.send(urls.get(k % 4), "PUT", "/v0/entity?id=key" + k + "&ack=3", PAD).statusCode())
                    .isEqualTo(201);
        }
        String leaving = urls.get(0);
        List<String> staying = urls.subList(1, 4);
        for (String u : staying) assertThat(cluster.send(u, "GET", "/v0/status", null).body()).contains("\"rebalancing\":false");

        CompletableFuture<HttpResponse<String>> leave = cluster.leave(leaving);
        Set<String> seenRebalancing = new HashSet<>();
        while (!leave.isDone()) {
            for (String u : staying) {
                if (cluster.send(u, "GET", "/v0/status", null).body().contains("\"rebalancing\":true")) seenRebalancing.add(u);
            }
            Thread.sleep(50);
        }
        HttpResponse<String> done = leave.get(90, TimeUnit.SECONDS);
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(seenRebalancing).as("members seen rebalancing during the leave").containsExactlyInAnyOrderElementsOf(staying);
        for (String u : staying) {
            String status = "";
            for (int i = 0; i < 100; i++) { // the version without the leaver reaches each member within a sync
                status = cluster.send(u, "GET", "/v0/status", null).body();
                if (status.contains("\"rebalancing\":false")) break;
                Thread.sleep(100);
            }
            assertThat(status).as(u + " once the leave is done").contains("\"rebalancing\":false");
        }
    }
}
