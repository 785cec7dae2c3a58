package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster that grows while it serves, with real {@code dht serve} processes: a fourth node
 * joins a three-node cluster ({@code --join}) under client writes and reads through every member,
 * checked by a history (no acknowledged write lost, no stale read), and at the end every key has
 * exactly the replication factor's copies, counted in each node's own data ({@code scope=local}).
 */
class MembershipProcessTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    private String status(NodeProcess n) throws Exception {
        return NodeStatus.of(n);
    }

    @Test
    void aFourthNodeJoinsUnderTrafficAndEveryKeyEndsWithThreeCopies() throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, 3);
        MembershipTraffic traffic = cluster.traffic(cluster.nodes);
        traffic.preload(cluster.requests, 2, 3);
        traffic.start(4);

        Thread.sleep(1_000);
        NodeProcess fourth = new NodeProcess(TestPorts.free(), tmp.resolve("n3"),
                List.of("--join", cluster.nodes.get(1).url(), "--anti-entropy-interval", "0"));
        cluster.nodes.add(fourth);
        fourth.startAndAwait();
        NodeStatus.await(List.of(fourth), "\"joining\":[]", Duration.ofSeconds(60));
        String joined = status(fourth);
        assertThat(joined).contains("\"membershipVersion\":3", "\"joining\":[]", "\"replicationFactor\":3",
                "\"" + fourth.url() + "\"");
        assertThat(joined).contains("\"keysMoved\":");
        // The members send only the keys the new node gains, each once: it received no more than
        // it kept, and no more keys than it holds.
        assertThat(field(joined, "bytesScanned")).as("bytes received").isEqualTo(field(joined, "bytesMoved"));
        assertThat(field(joined, "keysMoved")).as("keys received")
                .isLessThanOrEqualTo(cluster.requests.local(fourth).size());
        traffic.targets.add(fourth);
        Thread.sleep(2_000);
        traffic.stop();

        traffic.assertHistoryValid();
        assertThat(traffic.acked()).as("writes acknowledged during the join").isGreaterThan(20);
        for (NodeProcess n : cluster.nodes) {
            assertThat(status(n)).as(n.url()).contains("\"membershipVersion\":3");
        }

        // Once the old owners have cleaned up, each key is on exactly three nodes.
        Map<String, Integer> copies = copiesOnceSettled(cluster.nodes, 200, 3);
        assertThat(copies).hasSize(200);
        assertThat(copies.values()).as("copies per key").containsOnly(3);
        assertThat(cluster.requests.local(fourth)).as("the new node holds its share").hasSizeBetween(100, 200);
    }

    private static long field(String status, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + name + "\":(-?[0-9]+)").matcher(status);
        assertThat(m.find()).as(name + " in " + status).isTrue();
        return Long.parseLong(m.group(1));
    }

    private Map<String, Integer> copiesOnceSettled(List<NodeProcess> among, int keys, int expected) throws Exception {
        return MembershipTraffic.copiesOnceSettled(cluster.requests, among, keys, expected);
    }

    @Test
    void aMemberLeavesUnderTrafficItsDataMovesAndItsProcessExits() throws Exception {
        // Four nodes, three copies of each key: one can leave.
        startFourWithThreeCopies();
        NodeProcess leaving = cluster.nodes.get(3);
        List<NodeProcess> stay = List.copyOf(cluster.nodes.subList(0, 3));
        MembershipTraffic traffic = cluster.traffic(cluster.nodes);
        traffic.preload(cluster.requests, 3, 3);
        traffic.targets.remove(leaving);
        traffic.start(3);
        Thread.sleep(500);
        DhtRun run = DhtRun.of(Duration.ofSeconds(120), "leave", "--url", leaving.url());
        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stdout()).contains("membership version 3");
        assertThat(leaving.process().waitFor(30, TimeUnit.SECONDS)).as("the process of the node that left ends").isTrue();
        assertThat(leaving.process().exitValue()).isZero();
        Thread.sleep(1_000);
        traffic.stop();
        traffic.assertHistoryValid();
        for (NodeProcess n : stay) assertThat(status(n)).contains("\"membershipVersion\":3", "\"leaving\":[]");
        Map<String, Integer> copies = copiesOnceSettled(stay, 200, 3);
        assertThat(copies).hasSize(200);
        assertThat(copies.values()).containsOnly(3);

        DhtRun again = DhtRun.of(Duration.ofSeconds(60), "leave", "--url", stay.get(0).url());
        assertThat(again.exitCode()).as("three members left, replication factor 3").isEqualTo(1);
        assertThat(again.stderr()).contains("fewer than its replication factor");
    }

    private void startFourWithThreeCopies() throws Exception {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < 4; i++) ports.add(TestPorts.free());
        String members = String.join(",", ports.stream().map(p -> "http://localhost:" + p).toList());
        for (int i = 0; i < 4; i++) {
            cluster.nodes.add(new NodeProcess(ports.get(i), tmp.resolve("n" + i), List.of("--cluster", members,
                    "--replication-factor", "3", "--anti-entropy-interval", "0")));
        }
        for (NodeProcess n : cluster.nodes) n.start();
        for (NodeProcess n : cluster.nodes) n.awaitReady(Duration.ofSeconds(60));
    }

    @Test
    void aDeadMemberIsRemovedAndItsCopiesAreMadeAgain() throws Exception {
        startFourWithThreeCopies();
        for (int k = 0; k < 200; k++) {
            assertThat(cluster.requests.setUp(cluster.nodes.get(k % 4), "key" + k, "v" + k + ";", 3, 3)).isEqualTo(201);
        }
        DhtRun live = DhtRun.of(Duration.ofSeconds(60), "remove", "--url", cluster.nodes.get(3).url(),
                "--via", cluster.nodes.get(0).url());
        assertThat(live.exitCode()).isEqualTo(1);
        assertThat(live.stderr()).contains("is up");
        DhtRun stranger = DhtRun.of(Duration.ofSeconds(60), "remove", "--url", "http://localhost:1",
                "--via", cluster.nodes.get(0).url());
        assertThat(stranger.exitCode()).isEqualTo(1);
        assertThat(stranger.stderr()).contains("is not a member");

        cluster.nodes.get(3).kill();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!status(cluster.nodes.get(0)).contains("\"" + cluster.nodes.get(3).url() + "\":\"down\"")
                && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        DhtRun removed = DhtRun.of(Duration.ofSeconds(60), "remove", "--url", cluster.nodes.get(3).url(),
                "--via", cluster.nodes.get(0).url());
        assertThat(removed.exitCode()).as(removed.stderr()).isZero();
        List<NodeProcess> stay = List.copyOf(cluster.nodes.subList(0, 3));
        Map<String, Integer> copies = copiesOnceSettled(stay, 200, 3);
        assertThat(copies).hasSize(200);
        assertThat(copies.values()).as("every key on all three survivors").containsOnly(3);
        for (NodeProcess n : stay) assertThat(status(n)).contains("\"membershipVersion\":2");
        for (int k = 0; k < 200; k += 7) {
            HttpResponse<String> r = cluster.http.send(HttpRequest.newBuilder(
                    URI.create(stay.get(k % 3).url() + "/v0/entity?id=key" + k)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).isEqualTo("v" + k + ";");
        }
    }

    @Test
    void aJoiningNodeKilledMidStreamResumesAfterARestartWithNeitherFlag() throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, 3);
        String big = "x".repeat(8000);
        for (int k = 0; k < 1500; k++) {
            assertThat(cluster.requests.setUp(cluster.nodes.get(k % 3), "key" + k, big + k + ";", 3, 3)).isEqualTo(201);
        }
        // About 12 MB on each of three sources; each sends the joiner the quarter of the keys it
        // is the one to send (3 MB) at 600 KB/s, about 5 s a source, one after the other: the
        // kill comes after the first 1 MiB batch was written and before the first source is done.
        int port = TestPorts.free();
        NodeProcess joining = new NodeProcess(port, tmp.resolve("n3"), List.of("--join", cluster.nodes.get(0).url(),
                "--anti-entropy-interval", "0", "--rebalance-bytes-per-second", "600000"));
        cluster.nodes.add(joining);
        joining.startAndAwait();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!status(joining).matches("(?s).*\"keysMoved\":[1-9].*") && System.nanoTime() < deadline) Thread.sleep(100);
        assertThat(status(joining)).contains("\"rebalancing\":true");
        joining.kill();
        assertThat(status(cluster.nodes.get(0))).as("still joining while it is down")
                .contains("\"joining\":[\"" + joining.url() + "\"]");

        NodeProcess restarted = new NodeProcess(port, tmp.resolve("n3"), List.of("--anti-entropy-interval", "0"));
        cluster.nodes.add(restarted);
        restarted.startAndAwait();
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!status(restarted).contains("\"joining\":[]") && System.nanoTime() < deadline) Thread.sleep(200);
        assertThat(status(restarted)).contains("\"membershipVersion\":3", "\"joining\":[]");
        assertThat(restarted.output()).contains("resuming the stream from");
        List<NodeProcess> members = List.of(cluster.nodes.get(0), cluster.nodes.get(1), cluster.nodes.get(2), restarted);
        Map<String, Integer> copies = copiesOnceSettled(members, 1500, 3);
        assertThat(copies).hasSize(1500);
        assertThat(copies.values()).containsOnly(3);
        for (int k = 0; k < 1500; k += 37) {
            HttpResponse<String> r = cluster.http.send(HttpRequest.newBuilder(
                    URI.create(restarted.url() + "/v0/entity?id=key" + k)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).isEqualTo(big + k + ";");
        }
    }

    static final String BIG = "x".repeat(10_000);
    static final int BIG_KEYS = 1600;

    /** A join under traffic, one of its sources killed mid-stream: what the sender-killed cases share. */
    private record KilledSender(MembershipTraffic traffic, NodeProcess joining, NodeProcess sender) {
        /** Lets the traffic run 2 s more, stops it, and checks its history: nothing acknowledged lost. */
        void stopTrafficAndCheckHistory() throws Exception {
            Thread.sleep(2_000);
            traffic.stop();
            traffic.assertHistoryValid();
            assertThat(traffic.acked()).as("writes acknowledged during the join").isGreaterThan(20);
        }
    }

    /**
     * Three members holding {@link #BIG_KEYS} large values, traffic through all of them, and a
     * fourth node joining at 1 MB/s; the member that streams to it first is killed (SIGKILL) once
     * the joiner has read some of its stream. About 16 MB on each of three sources, each sending
     * the joiner the quarter of the keys it is the one to send, 4 MB: each source's stream takes
     * about 4 s, one after the other in URL order, and the first is killed some 0.1 s into its
     * stream, while more of it is still to come than the joiner's read-ahead (1 MiB) and the
     * sockets hold.
     */
    private KilledSender joinAndKillItsFirstSender() throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, 3);
        for (int k = 0; k < BIG_KEYS; k++) {
            assertThat(cluster.requests.setUp(cluster.nodes.get(k % 3), "big" + k, BIG + k + ";", 3, 3)).isEqualTo(201);
        }
        MembershipTraffic traffic = cluster.traffic(cluster.nodes);
        traffic.preload(cluster.requests, 2, 3);
        traffic.start(3);
        NodeProcess joining = new NodeProcess(TestPorts.free(), tmp.resolve("n3"), List.of("--join", cluster.nodes.get(0).url(),
                "--anti-entropy-interval", "0", "--rebalance-bytes-per-second", "1000000"));
        cluster.nodes.add(joining);
        joining.startAndAwait();
        NodeProcess sender = cluster.nodes.subList(0, 3).stream().min(java.util.Comparator.comparing(NodeProcess::url))
                .orElseThrow();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!status(joining).matches("(?s).*\"bytesScanned\":[1-9][0-9]{5,}.*") && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        traffic.targets.remove(sender);
        sender.kill();
        return new KilledSender(traffic, joining, sender);
    }

    /** Every key of the run on three of {@code live}, and the large values read back through the joiner. */
    private void assertThreeCopiesOfEveryKey(List<NodeProcess> live, NodeProcess joining) throws Exception {
        Map<String, Integer> copies = copiesOnceSettled(live, BIG_KEYS + MembershipTraffic.KEYS, 3);
        assertThat(copies).hasSize(BIG_KEYS + MembershipTraffic.KEYS);
        assertThat(copies.values()).as("copies per key").containsOnly(3);
        for (int k = 0; k < BIG_KEYS; k += 28) {
            HttpResponse<String> r = cluster.http.send(HttpRequest.newBuilder(URI.create(joining.url() + "/v0/entity?id=big" + k))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).isEqualTo(BIG + k + ";");
        }
    }

    /**
     * A source of the joiner's stream killed (SIGKILL) while it streams and restarted: the joiner
     * retries it, the join ends once it is back, and no acknowledged write is lost. Five JVM
     * starts make it over a minute on a busy machine, so it runs with -Pslow; the joiner's own
     * kill, above, stays in the default run.
     */
    @Test
    @Tag("slow")
    void aMemberKilledWhileItStreamsToAJoinerIsRestartedAndTheJoinCompletes() throws Exception {
        KilledSender run = joinAndKillItsFirstSender();
        NodeProcess joining = run.joining();
        NodeProcess sender = run.sender();
        assertThat(status(joining)).as("still joining").contains("\"rebalancing\":true");
        Thread.sleep(3_000);
        NodeProcess restarted = new NodeProcess(sender.port, sender.data, sender.extraArgs);
        cluster.nodes.add(restarted);
        restarted.startAndAwait();
        run.traffic().targets.add(restarted);

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!status(joining).contains("\"joining\":[]") && System.nanoTime() < deadline) Thread.sleep(200);
        assertThat(status(joining)).contains("\"membershipVersion\":3", "\"joining\":[]");
        assertThat(joining.output()).as("the stream from the killed member failed and was resumed")
                .contains("the stream from " + sender.url() + " failed");
        run.traffic().targets.add(joining);
        run.stopTrafficAndCheckHistory();

        List<NodeProcess> members = new ArrayList<>(cluster.nodes.subList(0, 3));
        members.remove(sender);
        members.add(restarted);
        members.add(joining);
        for (NodeProcess n : members) assertThat(status(n)).as(n.url()).contains("\"membershipVersion\":3");
        assertThreeCopiesOfEveryKey(members, joining);
    }

    /**
     * A source of the joiner's stream killed (SIGKILL) while it streams and never brought back: the
     * other members send its keys, the join ends without it (its laggard), {@code bin/dht remove}
     * drops it, no acknowledged write is lost, and every key ends on the three live nodes.
     */
    @Test
    @Tag("slow")
    void aMemberKilledForGoodWhileItStreamsToAJoinerIsStoodInForAndRemoved() throws Exception {
        KilledSender run = joinAndKillItsFirstSender();
        NodeProcess joining = run.joining();
        NodeProcess sender = run.sender();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!status(joining).contains("\"joining\":[]") && System.nanoTime() < deadline) Thread.sleep(200);
        assertThat(status(joining)).contains("\"membershipVersion\":3", "\"joining\":[]", "\"laggards\":[\"" + sender.url() + "\"]");
        assertThat(joining.output()).contains("the other members send its keys instead");
        run.traffic().targets.add(joining);
        DhtRun removed = DhtRun.of(Duration.ofSeconds(60), "remove", "--url", sender.url(), "--via", joining.url());
        assertThat(removed.exitCode()).as(removed.stderr()).isZero();
        run.stopTrafficAndCheckHistory();

        List<NodeProcess> live = new ArrayList<>(cluster.nodes.subList(0, 3));
        live.remove(sender);
        live.add(joining);
        for (NodeProcess n : live) assertThat(status(n)).as(n.url()).contains("\"membershipVersion\":4");
        assertThreeCopiesOfEveryKey(live, joining);
    }

    @Test
    void aJoinThroughNoMemberOfAMemberOrFromAnUnreachableUrlFailsAndChangesNothing() throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, 3);
        NodeProcess nowhere = new NodeProcess(TestPorts.free(), tmp.resolve("x"),
                List.of("--join", "http://localhost:" + TestPorts.free()));
        cluster.nodes.add(nowhere);
        nowhere.start();
        assertThat(nowhere.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(nowhere.process().exitValue()).isEqualTo(1);
        assertThat(nowhere.output()).contains("cannot join through");
        assertThat(tmp.resolve("x")).as("the directory the refused join made").doesNotExist();

        NodeProcess twice = new NodeProcess(TestPorts.free(), tmp.resolve("y"),
                List.of("--join", cluster.nodes.get(0).url(), "--self", cluster.nodes.get(2).url()));
        cluster.nodes.add(twice);
        twice.start();
        assertThat(twice.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(twice.process().exitValue()).isEqualTo(1);
        assertThat(twice.output()).contains("is already a member");
        assertThat(tmp.resolve("y")).doesNotExist();

        // A joiner serves before it asks to join, and the member checks that it answers at its
        // URL: a --self that does not reach it is refused before any member routes writes there.
        String unreachable = "http://localhost:" + TestPorts.free();
        NodeProcess astray = new NodeProcess(TestPorts.free(), tmp.resolve("z"),
                List.of("--join", cluster.nodes.get(1).url(), "--self", unreachable));
        cluster.nodes.add(astray);
        astray.start();
        assertThat(astray.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(astray.process().exitValue()).isEqualTo(1);
        assertThat(astray.output()).contains(unreachable + " does not answer at its URL from " + cluster.nodes.get(1).url());
        assertThat(tmp.resolve("z")).doesNotExist();
        for (int i = 0; i < 3; i++) assertThat(status(cluster.nodes.get(i))).contains("\"membershipVersion\":1");
    }
}
