package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.HintSettings;
import dht.testkit.TestPorts;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real nodes in-process, three copies of each key: a fourth node joins and dies (stopped
 * for good) while it streams. {@code remove} of it calls its join off, so the cluster is not left
 * changing for ever: the members list no one joining, every key still reads, and the next join
 * goes through. Before, the joiner was "not a member" to remove, and every other change was
 * refused while its join was under way. The joiner, started again after all, stops its join.
 */
class JoinCalledOffTest {
    static final int KEYS = 1_500;
    static final String PAD = "z".repeat(2_000);

    @TempDir
    Path dir;
    final InProcessMembers cluster = new InProcessMembers(3);

    @AfterEach
    void stop() {
        cluster.close();
    }

    /** A node joining through the first member, its stream paced at 1 MiB/s (about a second per member's part). */
    private Node joiner(int port, String name) throws Exception {
        String url = "http://localhost:" + port;
        Node n = Node.start(InProcessNodeConfigs.of(port, dir.resolve(name), List.of(url), 0, cluster.urls.getFirst(),
                HintSettings.DEFAULTS, 1 << 20));
        cluster.nodes.add(n);
        return n;
    }

    @Test
    void removingAJoinerThatDiedCallsItsJoinOffAndTheNextJoinGoesThrough() throws Exception {
        List<String> urls = cluster.urls;
        cluster.startAll(i -> InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), urls, 3, null));
        cluster.write(KEYS, k -> "v" + k + "-" + PAD);
        int port = TestPorts.free();
        String dead = "http://localhost:" + port;
        Node dying = joiner(port, "dying");
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (cluster.field(dead, "bytesScanned") < 100_000 && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(cluster.send(urls.get(0), "GET", "/v0/status", null).body()).contains("\"joining\":[\"" + dead + "\"]");
        dying.close();

        HttpResponse<String> removed = cluster.removeOnceDown(urls.get(0), dead);
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        for (String m : urls) {
            String status = cluster.send(m, "GET", "/v0/status", null).body();
            assertThat(status).as(m).contains("\"membershipVersion\":3", "\"joining\":[]").doesNotContain(dead);
        }
        for (int k = 0; k < KEYS; k += 50) {
            assertThat(cluster.send(urls.get(k % 3), "GET", "/v0/entity?id=key" + k, null).body()).isEqualTo("v" + k + "-" + PAD);
        }

        // Not dead after all: started again on its directory, it learns its join was called off and
        // stops asking for streams the members refuse (before, once a second for ever, "rebalancing").
        cluster.nodes.add(Node.start(InProcessNodeConfigs.of(port, dir.resolve("dying"), List.of(dead), 0,
                urls.getFirst(), HintSettings.DEFAULTS, 1 << 20)));
        String back = cluster.send(dead, "GET", "/v0/status", null).body();
        for (long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                !back.contains("\"rebalancing\":false") && System.nanoTime() < until; ) {
            Thread.sleep(100);
            back = cluster.send(dead, "GET", "/v0/status", null).body();
        }
        assertThat(back).contains("\"membershipVersion\":3", "\"rebalancing\":false");
        Thread.sleep(2_000);
        assertThat(cluster.send(dead, "GET", "/v0/status", null).body()).contains("\"rebalancing\":false");
        cluster.nodes.removeLast().close();

        int next = TestPorts.free();
        String joining = "http://localhost:" + next;
        joiner(next, "next");
        assertThat(cluster.statusOnceJoined(Duration.ofSeconds(60), joining)).as("the next join, done")
                .contains("\"membershipVersion\":5", "\"joining\":[]", joining);
    }
}
