package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node joins while a member is down, with real {@code dht serve} processes: three members,
 * three copies of each key, anti-entropy off (so that nothing but the join's streams, the hints
 * and the cleanup shape the copies). One member is killed (SIGKILL); a fourth node joins through
 * a live one under client writes and reads through the two live members. The join is agreed
 * without the dead member, which both of its versions record as their laggard; its stream fails
 * until the others send its keys instead (30 s), and the join ends. The history shows no
 * acknowledged write lost and no stale read. The dead member restarts on its data, takes the
 * version that ended the join (two versions on), sends the {@code from=1} keys whose only copy it
 * holds to their new owner (no other member could), cleans up the keys it no longer owns and gets
 * the writes it missed as hints: every key ends with exactly three copies, each {@code from=1}
 * key with one.
 */
class JoinWhileDownProcessTest {
    private static final int ONE_COPY = 60;
    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    @Test
    void aNodeJoinsWhileAMemberIsDownWhichCatchesUpWhenBack() throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, 3); // anti-entropy off
        NodeProcess a = cluster.nodes.get(0);
        NodeProcess b = cluster.nodes.get(1);
        NodeProcess down = cluster.nodes.get(2);
        List<NodeProcess> live = List.of(a, b);

        MembershipTraffic traffic = cluster.traffic(cluster.nodes);
        traffic.preload(cluster.requests, 3, 3);
        // One copy each: a third of them only on the member about to die, which no other can send.
        for (int k = 0; k < ONE_COPY; k++) {
            assertThat(cluster.requests.write(cluster.nodes.get(k % 3), "one" + k, "o" + k + ";", 1, 1)).isEqualTo(201);
        }
        traffic.targets.retainAll(live);
        down.kill();
        assertThat(NodeStatus.await(live, "\"" + down.url() + "\":\"down\"", Duration.ofSeconds(30))).isTrue();
        traffic.start(2);
        Thread.sleep(500);

        NodeProcess joins = new NodeProcess(TestPorts.free(), tmp.resolve("joins"),
                List.of("--join", a.url(), "--anti-entropy-interval", "0"));
        cluster.nodes.add(joins);
        joins.startAndAwait();
        assertThat(NodeStatus.await(live, "\"joining\":[\"" + joins.url() + "\"]", Duration.ofSeconds(30)))
                .as(joins.output()).isTrue();
        // the joiner serves before its join is agreed: it takes the record once the answer is back
        assertThat(NodeStatus.await(List.of(a, b, joins), "\"laggards\":[\"" + down.url() + "\"]", Duration.ofSeconds(30)))
                .as(joins.output()).isTrue();
        for (NodeProcess n : List.of(a, b)) assertThat(NodeStatus.of(n)).contains("\"membershipVersion\":2");

        // The others stand in for the dead member's stream after 30 s, and the join ends without it.
        List<NodeProcess> after = List.of(a, b, joins);
        assertThat(NodeStatus.await(after, "\"membershipVersion\":3", Duration.ofSeconds(150))).as(joins.output()).isTrue();
        assertThat(joins.output()).contains(down.url() + " is down and its stream has failed for 30 s");
        for (NodeProcess n : after) {
            assertThat(NodeStatus.of(n)).contains("\"joining\":[]", "\"laggards\":[\"" + down.url() + "\"]");
        }
        traffic.targets.add(joins);
        Thread.sleep(2_000);
        traffic.stop();
        traffic.assertHistoryValid();
        assertThat(traffic.acked()).as("writes acknowledged while a member was down").isGreaterThan(20);

        NodeProcess back = new NodeProcess(down.port, down.data, down.extraArgs);
        cluster.nodes.add(back);
        back.startAndAwait();
        assertThat(NodeStatus.await(List.of(back), "\"membershipVersion\":3", Duration.ofSeconds(30)))
                .as(back.output()).isTrue();
        Map<String, Integer> copies = MembershipTraffic.copiesOnceSettled(cluster.requests, List.of(a, b, back, joins),
                MembershipTraffic.KEYS + ONE_COPY, key -> key.startsWith("one") ? 1 : 3);
        assertThat(copies).hasSize(MembershipTraffic.KEYS + ONE_COPY);
        copies.forEach((key, n) -> assertThat(n).as("copies of " + key).isEqualTo(key.startsWith("one") ? 1 : 3));
        assertThat(back.output()).contains("versions whose only copy was here sent to their new owners first");
    }
}
