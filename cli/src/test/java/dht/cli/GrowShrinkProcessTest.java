package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.History;
import dht.testkit.TestPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster of real {@code dht serve} processes that grows and shrinks while it serves, with
 * anti-entropy on: 3 -> 4 -> 5 -> 3 under client writes and reads through the members, checked by
 * a history (no acknowledged write lost, no stale read), ending with exactly the replication
 * factor's copies of each key; then every member restarted with no {@code --cluster} or
 * {@code --join}: they agree on the membership and serve every key as before.
 */
class GrowShrinkProcessTest {
    private static final List<String> ANTI_ENTROPY = List.of("--anti-entropy-interval", "2000");

    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    /** Starts a node that joins through {@code via}, and waits until every member is on {@code version}, where it is one. */
    private NodeProcess join(NodeProcess via, String name, List<NodeProcess> members, long version) throws Exception {
        List<String> args = new ArrayList<>(List.of("--join", via.url()));
        args.addAll(ANTI_ENTROPY);
        NodeProcess n = new NodeProcess(TestPorts.free(), tmp.resolve(name), args);
        cluster.nodes.add(n);
        n.startAndAwait();
        List<NodeProcess> all = new ArrayList<>(members);
        all.add(n);
        assertThat(NodeStatus.await(all, "\"membershipVersion\":" + version, Duration.ofSeconds(90)))
                .as("every member on version " + version + " once " + n.url() + " joined").isTrue();
        assertThat(NodeStatus.of(n)).contains("\"joining\":[]");
        return n;
    }

    /** {@code bin/dht leave} of {@code n}: it exits 0 and every one of {@code stay} is on {@code version}. */
    private void leave(NodeProcess n, List<NodeProcess> stay, long version) throws Exception {
        DhtRun run = DhtRun.of(Duration.ofSeconds(120), "leave", "--url", n.url());
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(n.process().waitFor(30, TimeUnit.SECONDS)).as("the process of the node that left ends").isTrue();
        assertThat(n.process().exitValue()).isZero();
        assertThat(NodeStatus.await(stay, "\"membershipVersion\":" + version, Duration.ofSeconds(30)))
                .as("every member on version " + version + " once " + n.url() + " left").isTrue();
    }

    /** The members list of a status body. */
    private static String members(String status) {
        Matcher m = Pattern.compile("\"members\":(\\[[^]]*])").matcher(status);
        assertThat(m.find()).as(status).isTrue();
        return m.group(1);
    }

    /** Quorum reads of every key through {@code via}, recorded into {@code history} as {@code process}: key to value. */
    private Map<String, String> readAll(NodeProcess via, History history, int process) {
        Map<String, String> out = new TreeMap<>();
        for (int k = 0; k < MembershipTraffic.KEYS; k++) {
            String key = MembershipTraffic.key(k);
            String value;
            // On a busy machine a quorum read may time out (504: two replicas silent for the 1 s
            // replica timeout); it is asked again, so that only answers are compared.
            int attempt = 0;
            do {
                History.Invocation inv = history.get(process, key);
                value = cluster.requests.get(via, key, 0, 0);
                if (value.equals("404")) inv.read(null);
                else if (value.matches("[0-9]{3}")) inv.unknown();
                else inv.read(value);
            } while (value.matches("5[0-9]{2}") && ++attempt < 5);
            out.put(key, value);
        }
        return out;
    }

    /**
     * SIGTERMs every one of {@code members}, starts each again with no {@code --cluster} or
     * {@code --join} (port and data directory only), and checks they agree on membership
     * {@code version} and its members, and that every key reads as {@code before} through each.
     */
    private List<NodeProcess> restartAll(List<NodeProcess> members, long version, Map<String, String> before, History history)
            throws Exception {
        for (NodeProcess n : members) assertThat(n.terminate(Duration.ofSeconds(30))).as(n.url() + " stops").isZero();
        List<NodeProcess> again = new ArrayList<>();
        for (NodeProcess n : members) {
            NodeProcess r = new NodeProcess(n.port, n.data, List.of());
            cluster.nodes.add(r);
            again.add(r.start());
        }
        for (NodeProcess r : again) r.awaitReady(Duration.ofSeconds(60));
        assertThat(NodeStatus.await(again, "\"membershipVersion\":" + version, Duration.ofSeconds(30))).isTrue();
        String agreed = members(NodeStatus.of(again.getFirst()));
        for (NodeProcess r : again) {
            String status = NodeStatus.of(r);
            assertThat(members(status)).as(r.url()).isEqualTo(agreed);
            assertThat(status).contains("\"joining\":[]", "\"leaving\":[]");
        }
        for (NodeProcess r : again) assertThat(agreed).contains("\"" + r.url() + "\"");
        for (NodeProcess r : again) assertThat(readAll(r, history, 98)).as("every key through " + r.url()).isEqualTo(before);
        return again;
    }

    @Test
    @Tag("slow")
    void growsToFiveAndShrinksBackToThreeUnderTrafficThenEveryMemberRestarts() throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, 3, ANTI_ENTROPY);
        List<NodeProcess> members = new ArrayList<>(cluster.nodes);
        MembershipTraffic traffic = cluster.traffic(members);
        traffic.preload(cluster.requests, 2, 3);
        traffic.start(4);

        NodeProcess fourth = join(members.get(1), "n3", members, 3);
        members.add(fourth);
        traffic.targets.add(fourth);
        NodeProcess fifth = join(fourth, "n4", members, 5);
        members.add(fifth);
        traffic.targets.add(fifth);
        int ackedGrowing = traffic.acked();

        // An original member leaves, then one that joined: back to three.
        for (NodeProcess gone : List.of(members.get(1), fourth)) {
            traffic.targets.remove(gone);
            members.remove(gone);
            leave(gone, members, gone == fourth ? 9 : 7);
        }
        Thread.sleep(1_000);
        traffic.stop();
        traffic.assertHistoryValid();
        assertThat(ackedGrowing).as("writes acknowledged while the cluster grew").isGreaterThan(20);
        assertThat(traffic.acked()).as("writes acknowledged while it shrank too").isGreaterThan(ackedGrowing);

        Map<String, Integer> copies = MembershipTraffic.copiesOnceSettled(cluster.requests, members, MembershipTraffic.KEYS, 3);
        assertThat(copies).hasSize(MembershipTraffic.KEYS);
        assertThat(copies.values()).as("copies per key").containsOnly(3);
        for (NodeProcess n : members) {
            String status = NodeStatus.of(n);
            for (NodeProcess other : members) assertThat(members(status)).contains("\"" + other.url() + "\"");
            // anti-entropy exchanges with the members now, and no longer with those that left
            assertThat(status).doesNotContain("\"" + fourth.url() + "\":{\"lastExchangeMillis\"");
            assertThat(status).doesNotContain("\"" + cluster.nodes.get(1).url() + "\":{\"lastExchangeMillis\"");
            for (NodeProcess other : members) {
                if (other != n) assertThat(status).contains("\"" + other.url() + "\":{\"lastExchangeMillis\"");
            }
        }

        Map<String, String> before = readAll(members.getFirst(), traffic.history, 98);
        List<NodeProcess> again = restartAll(members, 9, before, traffic.history);
        traffic.assertHistoryValid();
        copies = MembershipTraffic.copiesOnceSettled(cluster.requests, again, MembershipTraffic.KEYS, 3);
        assertThat(copies.values()).as("copies per key after the restart").containsOnly(3);
    }

    @Test
    void everyMemberRestartedAfterAJoinAgreesOnTheMembershipAndServesEveryKey() throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, 3, ANTI_ENTROPY);
        List<NodeProcess> members = new ArrayList<>(cluster.nodes);
        MembershipTraffic traffic = cluster.traffic(members);
        traffic.preload(cluster.requests, 3, 3);
        members.add(join(members.get(2), "n3", members, 3));
        Map<String, Integer> copies = MembershipTraffic.copiesOnceSettled(cluster.requests, members, MembershipTraffic.KEYS, 3);
        assertThat(copies.values()).as("copies per key").containsOnly(3);

        Map<String, String> before = readAll(members.get(3), traffic.history, 98);
        assertThat(before.values()).as("every key written before").noneMatch(v -> v.matches("[0-9]{3}"));
        List<NodeProcess> again = restartAll(members, 3, before, traffic.history);
        traffic.assertHistoryValid();
        copies = MembershipTraffic.copiesOnceSettled(cluster.requests, again, MembershipTraffic.KEYS, 3);
        assertThat(copies.values()).as("copies per key after the restart").containsOnly(3);
    }
}
