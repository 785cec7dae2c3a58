package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.Placement;
import dht.testkit.TestPorts;
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
 * Three real nodes in-process, a replication factor of 3, anti-entropy off: keys written with
 * {@code from=1&ack=1} (one copy each) stay readable with {@code from=1&ack=1} through every node
 * while a fourth node joins and then leaves, and each ends on exactly one node, the first of its
 * placement. Before, a move kept such a version on the replication factor's copies: the join
 * moved it only when the node it displaced from the first three held it, so the key's new first
 * replica often lacked it, and a {@code from=1} read answered 404.
 */
class FewerCopiesThanReplicationFactorMoveTest {
    static final int KEYS = 100;

    @TempDir
    Path dir;
    final InProcessMembers cluster = new InProcessMembers(3);

    @AfterEach
    void stop() {
        cluster.close();
    }

    private void assertEveryKeyReadsWithOneCopy(List<String> via) throws Exception {
        assertThat(cluster.misplacedAfter(Duration.ofSeconds(30), via, 1, KEYS, k -> "one" + k))
                .as("keys not on exactly their first replica").isEmpty();
        for (String url : via) {
            for (int k = 0; k < KEYS; k++) {
                HttpResponse<String> r = cluster.send(url, "GET", "/v0/entity?id=key" + k + "&from=1&ack=1", null);
                assertThat(r.statusCode()).as("key%d through %s", k, url).isEqualTo(200);
                assertThat(r.body()).isEqualTo("one" + k);
            }
        }
    }

    @Test
    void versionsWrittenWithOneCopyMoveToTheirNewFirstReplica() throws Exception {
        List<String> urls = cluster.urls;
        cluster.startAll(i -> InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), urls, 3, null));
        for (int k = 0; k < KEYS; k++) {
            assertThat(cluster.send(urls.get(k % 3), "PUT", "/v0/entity?id=key" + k + "&from=1&ack=1", "one" + k).statusCode())
                    .isEqualTo(201);
        }
        int port = TestPorts.free();
        String joiner = "http://localhost:" + port;
        cluster.nodes.add(Node.start(InProcessNodeConfigs.of(port, dir.resolve("joiner"), List.of(joiner), 0, urls.getFirst())));
        assertThat(cluster.statusOnceJoined(Duration.ofSeconds(60), joiner)).contains("\"joining\":[]");
        List<String> four = new ArrayList<>(urls);
        four.add(joiner);
        assertEveryKeyReadsWithOneCopy(four);
        long gained = 0;
        for (int k = 0; k < KEYS; k++) {
            if (new Placement(four).replicas(("key" + k).getBytes(StandardCharsets.UTF_8), 1).contains(joiner)) gained++;
        }
        assertThat(gained).as("the joiner is the first replica of some keys").isPositive();
        assertThat(cluster.field(joiner, "keysMovedIn"))
                .as("the members' cleanups pushed it each version whose only copy is now its own, and it counted them")
                .isEqualTo(gained);

        HttpResponse<String> left = cluster.send(joiner, "POST", "/internal/v0/membership?op=leave&url=" + joiner, "");
        assertThat(left.statusCode()).as(left.body()).isEqualTo(200);
        assertEveryKeyReadsWithOneCopy(urls);
    }
}
