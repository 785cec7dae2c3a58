package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member leaves while another is down, with real {@code dht serve} processes: four members,
 * three copies of each key, anti-entropy off (so that nothing but the hand-over and the hints
 * bring the down member its keys). One member is killed (SIGKILL); another leaves with
 * {@code bin/dht leave} under client writes and reads through the two others, and its process
 * exits 0; the history shows no acknowledged write lost and no stale read. The version records
 * the down member as its laggard, and a join while it is still down is refused with nothing
 * changed. The down member restarts on its data, takes the version, gets the keys the leaving
 * node handed to a live member for it (among them keys no client wrote again, which nothing else
 * would bring it), and every key ends with exactly three copies; then a join
 * goes through and clears the record.
 */
class LeaveWhileDownProcessTest {
    private static final Pattern HANDED = Pattern.compile("\\((\\d+) kept by a member for \\[([^]]+)]");
    private static final int COLD = 100;
    private static final Pattern DELIVERED = Pattern.compile("\"handOverHintsDelivered\":(\\d+)");

    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    @Test
    void aMemberLeavesWhileAnotherIsDownWhichGetsItsKeysWhenBack() throws Exception {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < 4; i++) ports.add(TestPorts.free());
        String members = String.join(",", ports.stream().map(p -> "http://localhost:" + p).toList());
        List<String> args = List.of("--cluster", members, "--replication-factor", "3", "--anti-entropy-interval", "0");
        for (int i = 0; i < 4; i++) cluster.nodes.add(new NodeProcess(ports.get(i), tmp.resolve("n" + i), args));
        for (NodeProcess n : cluster.nodes) n.start();
        for (NodeProcess n : cluster.nodes) n.awaitReady(Duration.ofSeconds(60));
        NodeProcess a = cluster.nodes.get(0);
        NodeProcess b = cluster.nodes.get(1);
        NodeProcess down = cluster.nodes.get(2);
        NodeProcess leaving = cluster.nodes.get(3);
        List<NodeProcess> live = List.of(a, b);

        MembershipTraffic traffic = cluster.traffic(cluster.nodes);
        traffic.preload(cluster.requests, 3, 3);
        // Keys no client writes again: the down member can get those it gains only from the hand-over.
        for (int k = 0; k < COLD; k++) {
            int code = 0;
            // on a loaded machine a replica may time out (504): the same value again is harmless
            for (int attempt = 0; attempt < 5 && code != 201; attempt++) {
                code = cluster.requests.write(cluster.nodes.get(k % 4), "cold" + k, "c" + k + ";", 3, 3);
            }
            assertThat(code).isEqualTo(201);
        }
        traffic.targets.retainAll(live);
        down.kill();
        assertThat(NodeStatus.await(live, "\"" + down.url() + "\":\"down\"", Duration.ofSeconds(30))).isTrue();
        traffic.start(2);
        Thread.sleep(500);

        DhtRun run = DhtRun.of(Duration.ofSeconds(120), "leave", "--url", leaving.url());
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stdout()).contains("membership version 3");
        assertThat(leaving.process().waitFor(30, TimeUnit.SECONDS)).as("the process of the node that left ends").isTrue();
        assertThat(leaving.process().exitValue()).isZero();
        Matcher handed = HANDED.matcher(leaving.output());
        assertThat(handed.find()).as(leaving.output()).isTrue();
        assertThat(handed.group(2)).isEqualTo(down.url());
        long handedOver = Long.parseLong(handed.group(1));
        assertThat(handedOver).as("keys the down member gains from the one that left").isPositive();
        for (NodeProcess n : live) {
            assertThat(NodeStatus.of(n)).contains("\"membershipVersion\":3", "\"leaving\":[]",
                    "\"laggards\":[\"" + down.url() + "\"]");
        }

        // Any other change waits for the laggard: a join is refused, and nothing changes.
        NodeProcess refused = new NodeProcess(TestPorts.free(), tmp.resolve("refused"),
                List.of("--join", a.url(), "--anti-entropy-interval", "0"));
        cluster.nodes.add(refused);
        refused.start();
        assertThat(refused.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(refused.process().exitValue()).isEqualTo(1);
        assertThat(refused.output()).contains(down.url() + " missed membership version 3");
        Thread.sleep(1_000);
        traffic.stop();
        traffic.assertHistoryValid();
        assertThat(traffic.acked()).as("writes acknowledged while a member was down").isGreaterThan(20);
        for (NodeProcess n : live) {
            assertThat(NodeStatus.of(n)).contains("\"membershipVersion\":3", "\"joining\":[]",
                    "\"laggards\":[\"" + down.url() + "\"]").doesNotContain(refused.url());
        }

        // Back on its data: it takes the version, and the keys kept for it arrive.
        NodeProcess back = new NodeProcess(down.port, down.data, down.extraArgs);
        cluster.nodes.add(back);
        back.startAndAwait();
        assertThat(NodeStatus.await(List.of(back), "\"membershipVersion\":3", Duration.ofSeconds(30)))
                .as(back.output()).isTrue();
        List<NodeProcess> stay = List.of(a, b, back);
        int keys = MembershipTraffic.KEYS + COLD;
        Map<String, Integer> copies = MembershipTraffic.copiesOnceSettled(cluster.requests, stay, keys, 3);
        assertThat(copies).hasSize(keys);
        assertThat(copies.values()).as("copies per key").containsOnly(3);
        long delivered = 0;
        for (NodeProcess n : live) {
            Matcher m = DELIVERED.matcher(NodeStatus.of(n));
            assertThat(m.find()).isTrue();
            delivered += Long.parseLong(m.group(1));
        }
        assertThat(delivered).as("versions handed over, then delivered to the member back").isEqualTo(handedOver);
        Map<String, String> onBack = cluster.requests.local(back);
        for (int k = 0; k < COLD; k++) assertThat(onBack.get("cold" + k)).isEqualTo("c" + k + ";");

        // It has the version: the next change goes through, and the record is cleared.
        NodeProcess joins = new NodeProcess(TestPorts.free(), tmp.resolve("joins"),
                List.of("--join", a.url(), "--anti-entropy-interval", "0"));
        cluster.nodes.add(joins);
        joins.startAndAwait();
        assertThat(NodeStatus.await(List.of(a, b, back, joins), "\"membershipVersion\":5", Duration.ofSeconds(60)))
                .isTrue();
        for (NodeProcess n : List.of(a, b, back, joins)) assertThat(NodeStatus.of(n)).contains("\"laggards\":[]");
    }
}
