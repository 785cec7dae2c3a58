package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.HintSettings;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five real nodes in-process, three copies of each key, anti-entropy off, pushes paced at 1 MiB/s:
 * a member dies (stopped for good) while another leaves and pushes to it. The leave still ends,
 * with the dead member as its laggard and the keys it gains kept for it by a live member; the dead
 * member can then be removed, and every key ends on the three that stay. Before, each repeat of the
 * leave failed on the push to the dead member, and no other change could be agreed meanwhile, its
 * removal included. The leaving node itself dying for good mid-leave is removed too: its leave is
 * called off, and the survivors re-create its copies.
 */
class LeaveWhileAMemberDiesTest {
    static final int KEYS = 1200;
    static final String VALUE = "v".repeat(10_000);

    @TempDir
    Path dir;
    final InProcessMembers cluster = new InProcessMembers(5);

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void aLeaveEndsWhenAMemberItPushesToDiesAndThatMemberCanBeRemoved() throws Exception {
        List<String> urls = cluster.urls;
        cluster.startAll(i -> InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), urls, 3, null,
                HintSettings.DEFAULTS, 1 << 20));
        cluster.write(KEYS, k -> VALUE + k);
        String leaving = urls.get(0);
        String dying = urls.get(3);
        CompletableFuture<HttpResponse<String>> leave = cluster.leave(leaving);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (cluster.field(leaving, "keysMoved") == 0 && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(leave).as("the leave, still pushing").isNotDone();
        cluster.nodes.get(3).close(); // dead for good

        HttpResponse<String> left = leave.get(120, TimeUnit.SECONDS);
        assertThat(left.statusCode()).as(left.body()).isEqualTo(200);
        assertThat(left.body()).as("the leave's end, without the dead member").contains("laggard=" + dying);
        cluster.nodes.get(0).close(); // its process would exit now

        HttpResponse<String> removed = cluster.removeOnceDown(urls.get(1), dying);
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        assertThat(cluster.lackingAfter(Duration.ofSeconds(60), List.of(urls.get(1), urls.get(2), urls.get(4)), KEYS, k -> VALUE + k))
                .as("keys not on all three that stay").isEmpty();
    }

    @Test
    void aLeavingNodeThatDiesForGoodIsRemovedAndItsCopiesAreMadeAgain() throws Exception {
        List<String> urls = cluster.urls;
        cluster.startAll(i -> InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), urls, 3, null,
                HintSettings.DEFAULTS, 1 << 20));
        cluster.write(KEYS, k -> VALUE + k);
        String leaving = urls.get(0);
        CompletableFuture<HttpResponse<String>> leave = cluster.leave(leaving);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (cluster.field(leaving, "keysMoved") == 0 && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(leave).as("the leave, still pushing").isNotDone();
        cluster.nodes.get(0).close(); // dead for good, its leave half done

        HttpResponse<String> removed = cluster.removeOnceDown(urls.get(1), leaving);
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        List<String> members = urls.subList(1, 5);
        for (String m : members) {
            assertThat(cluster.send(m, "GET", "/v0/status", null).body()).as(m)
                    .contains("\"membershipVersion\":4", "\"leaving\":[]").doesNotContain(leaving);
        }
        assertThat(cluster.misplacedAfter(Duration.ofSeconds(60), members, 3, KEYS, k -> VALUE + k))
                .as("keys not on exactly their three replicas among the four that stay").isEmpty();
    }
}
