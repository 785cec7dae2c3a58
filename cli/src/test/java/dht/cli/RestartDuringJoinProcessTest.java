package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.History;
import dht.testkit.TestPorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every member of a three-node cluster (replication factor 3) stopped and started again on its
 * data directory while a fourth node joins under client writes and reads: the join still ends,
 * the history holds (no acknowledged write lost, no read of one answered 404 or older), every key
 * ends with exactly three copies ({@code scope=local}), and all four agree on the membership.
 * A restart has {@code --port} and {@code --data} only, plus anti-entropy off as at the start, so
 * that no exchange makes up a missing copy behind the test's back (and, where a relay stands for
 * a node, its {@code --self} and hints off). Seven or eight JVM starts
 * make the first two over a minute on a busy machine, so they run with -Pslow; the default run
 * has the member down when the join commits, with five.
 */
class RestartDuringJoinProcessTest {
    /** Values of 10 KB: about 3 MB on each member, which holds every key (three copies on three nodes). */
    private static final int BIG_KEYS = 300;
    private static final String BIG = "x".repeat(10_000);
    private static final List<String> QUIET = List.of("--anti-entropy-interval", "0");

    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    /**
     * The three members stopped one after the other while a fourth node joins, each started again
     * before the next stops: SIGTERM, SIGKILL, SIGTERM. The joiner streams from the members one
     * after the other in URL order. The second and third are stopped before the stream reaches
     * them and kept down until it has (it fails, and is retried each second until they are
     * back); the first, whose stream is done by then, is stopped last, and the join cannot end
     * while it is down (its end needs every member's prepare). So every restart falls inside the
     * join whatever the machine's speed.
     */
    @Test
    @Tag("slow")
    void everyMemberRestartedOneAtATimeWhileANodeJoins() throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, 3);
        List<NodeProcess> members = new ArrayList<>(cluster.nodes);
        MembershipTraffic traffic = startTraffic(members, BIG_KEYS);
        members.sort(Comparator.comparing(NodeProcess::url));
        // About 3 MB on each member, read by the joiner at 600 KB/s: some 5 s from each.
        NodeProcess joining = join(members.getFirst(), 600_000);

        members.set(1, restart(members.get(1), traffic, 15, joining, true));
        members.set(2, restart(members.get(2), traffic, 9, joining, true));
        members.set(0, restart(members.get(0), traffic, 15, joining, false));

        List<NodeProcess> all = new ArrayList<>(members);
        all.add(joining);
        finish(all, all.stream().map(NodeProcess::url).toList(), joining, traffic, BIG_KEYS);
    }

    /** The joiner's {@code DATA/join-progress}: {@code done URL} or {@code at URL KEY} per source. */
    private static String progress(NodeProcess joining) throws Exception {
        Path progress = joining.data.resolve("join-progress");
        return Files.exists(progress) ? Files.readString(progress) : "";
    }

    /**
     * Waits until the joiner's stream is at {@code sources.get(i)}: every source before it done
     * ({@code DATA/join-progress}), it not, and the joiner still joining.
     */
    private static void awaitStreamingFrom(NodeProcess joining, List<String> sources, int i) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            String text = progress(joining);
            boolean before = true;
            for (int j = 0; j < i; j++) before &= text.contains("done " + sources.get(j) + "\n");
            if (before && (i > 0 || text.contains(sources.get(i)))) break;
            assertThat(System.nanoTime()).as("the stream from " + sources.get(i) + " starts; progress:\n" + text)
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
        assertThat(progress(joining)).as("the stream from " + sources.get(i) + " not done yet")
                .doesNotContain("done " + sources.get(i));
        assertThat(NodeStatus.of(joining)).as("still joining").contains("\"joining\":[\"" + joining.url() + "\"]");
    }

    /**
     * The three members stopped at once while the joiner streams from the second (two SIGKILLs
     * and a SIGTERM) and started again together, then one of them down when the join's end
     * commits, as below.
     */
    @Test
    @Tag("slow")
    void everyMemberStoppedAtOnceAndOneDownWhenTheJoinCommits() throws Exception {
        downWhenTheJoinCommits(true, BIG_KEYS);
    }

    /**
     * A member SIGKILLed when the join's end commits to it, after it prepared the change
     * ({@link KillAtCommitRelay}), so the join ends with it down. Writes acknowledged while it is
     * down, and the other old owners' cleanup, come before it starts again; then it must answer
     * with the version it missed from its first request: with the version before, it would read
     * from the old replicas, among them one that did not get those writes (or no longer has the
     * key), and could answer a value older than an acknowledged one.
     */
    @Test
    void aMemberDownWhenTheJoinCommitsAnswersWithTheVersionItMissed() throws Exception {
        downWhenTheJoinCommits(false, 30);
    }

    private void downWhenTheJoinCommits(boolean everyMemberStoppedFirst, int bigKeys) throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        try (KillAtCommitRelay relay = new KillAtCommitRelay(ports.getFirst())) {
            List<String> urls = List.of(relay.url(), "http://localhost:" + ports.get(1), "http://localhost:" + ports.get(2));
            List<NodeProcess> members = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                List<String> args = new ArrayList<>(List.of("--cluster", String.join(",", urls)));
                args.addAll(flags(i, relay));
                members.add(new NodeProcess(ports.get(i), tmp.resolve("n" + i), args));
            }
            // The first commit to reach it is the join's start, the second the join's end.
            AtomicReference<NodeProcess> relayed = new AtomicReference<>(members.getFirst());
            relay.arm(2, () -> {
                try {
                    relayed.get().kill();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            cluster.nodes.addAll(members);
            for (NodeProcess n : members) n.start();
            for (NodeProcess n : members) n.awaitReady(Duration.ofSeconds(60));
            MembershipTraffic traffic = startTraffic(members, bigKeys);
            NodeProcess joining = join(members.get(1), 600_000);

            if (everyMemberStoppedFirst) {
                awaitStreamingFrom(joining, urls.stream().sorted().toList(), 1);
                traffic.targets.clear();
                members.get(0).process().destroyForcibly();
                members.get(1).process().destroy();
                members.get(2).process().destroyForcibly();
                assertThat(members.get(1).process().waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(members.get(1).process().exitValue()).as("SIGTERM ends it with 0").isZero();
                for (int i = 0; i < 3; i++) {
                    assertThat(members.get(i).process().waitFor(10, TimeUnit.SECONDS)).isTrue();
                    members.set(i, new NodeProcess(ports.get(i), members.get(i).data, flags(i, relay)));
                }
                relayed.set(members.getFirst());
                cluster.nodes.addAll(members);
                for (NodeProcess n : members) n.start();
                for (NodeProcess n : members) n.awaitReady(Duration.ofSeconds(60));
                traffic.targets.addAll(members);
            }

            NodeProcess first = members.getFirst();
            assertThat(relay.awaitFired(120)).as("the join's end commits to " + relay.url()).isTrue();
            traffic.targets.remove(first);
            List<NodeProcess> up = List.of(members.get(1), members.get(2), joining);
            assertThat(NodeStatus.await(up, "\"membershipVersion\":3", Duration.ofSeconds(30))).isTrue();
            // The members may have the version (the joiner's pulls spread it) before the joiner's own
            // commit to the killed member has failed and said so: wait for the line, not only for them.
            String notCommitted = "membership version 3 not committed on " + relay.url();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!joining.output().contains(notCommitted) && System.nanoTime() < until) Thread.sleep(100);
            assertThat(joining.output()).contains(notCommitted);

            // Acknowledged while it is down; then the old owners drop the keys they no longer own.
            for (int k = 0; k < MembershipTraffic.KEYS; k++) {
                record(traffic, MembershipTraffic.key(k), "down" + k + ";", members.get(1 + k % 2));
            }
            for (NodeProcess n : List.of(members.get(1), members.get(2))) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (NodeStatus.of(n).contains("\"keysCleanedUp\":0") && System.nanoTime() < deadline) Thread.sleep(200);
                assertThat(NodeStatus.of(n)).as(n.url() + " cleaned up").doesNotContain("\"keysCleanedUp\":0");
            }

            NodeProcess again = new NodeProcess(ports.getFirst(), first.data, flags(0, relay));
            cluster.nodes.add(again);
            members.set(0, again);
            again.startAndAwait();
            String firstStatus = NodeStatus.of(again);
            for (int k = 0; k < MembershipTraffic.KEYS; k++) read(traffic, MembershipTraffic.key(k), again);
            traffic.assertHistoryValid();
            assertThat(firstStatus).as("the version it missed, learned before it answers").contains("\"membershipVersion\":3");
            traffic.targets.add(again);

            List<NodeProcess> all = new ArrayList<>(members);
            all.add(joining);
            List<String> selves = new ArrayList<>(urls);
            selves.add(joining.url());
            finish(all, selves, joining, traffic, bigKeys);
        }
    }

    /**
     * The flags of every start: anti-entropy and hints off (a hint delivered to the restarted
     * node before it answers would hide what it reads), and the first node's URL (what the
     * others know it by) is the relay's.
     */
    private static List<String> flags(int i, KillAtCommitRelay relay) {
        List<String> out = new ArrayList<>(QUIET);
        out.addAll(List.of("--hint-bytes", "0"));
        if (i == 0) out.addAll(List.of("--self", relay.url()));
        return out;
    }

    /** A PUT through {@code via} with the node's defaults, recorded in the history as client 97. */
    private void record(MembershipTraffic traffic, String key, String value, NodeProcess via) {
        History.Invocation inv = traffic.history.put(97, key, value);
        try {
            int code = cluster.requests.write(via, key, value, 0, 0);
            if (code == 201) inv.ok();
            else if (code >= 400 && code < 500) inv.fail();
            else inv.unknown();
        } catch (RuntimeException e) {
            inv.unknown();
        }
    }

    /** A GET through {@code via} with the node's defaults, recorded in the history as client 97. */
    private void read(MembershipTraffic traffic, String key, NodeProcess via) {
        History.Invocation inv = traffic.history.get(97, key);
        try {
            String value = cluster.requests.get(via, key, 0, 0);
            if (value.equals("404")) inv.read(null);
            else if (value.matches("[0-9]{3}")) inv.unknown();
            else inv.read(value);
        } catch (RuntimeException e) {
            inv.unknown();
        }
    }

    /** Writes {@code bigKeys} values of 10 KB on every member, then the traffic's keys, and starts four clients. */
    private MembershipTraffic startTraffic(List<NodeProcess> members, int bigKeys) throws Exception {
        for (int k = 0; k < bigKeys; k++) {
            // on every replica: a busy machine may time one out (504), and the same write again is harmless
            int code = 0;
            for (int attempt = 0; attempt < 5 && code != 201; attempt++) {
                code = cluster.requests.write(members.get((k + attempt) % 3), "big" + k, BIG + k + ";", 3, 3);
            }
            assertThat(code).as("big" + k).isEqualTo(201);
        }
        MembershipTraffic traffic = cluster.traffic(members);
        traffic.preload(cluster.requests, 2, 3);
        traffic.start(4);
        return traffic;
    }

    /**
     * Starts a node joining through {@code via}, its stream paced at {@code bytesPerSecond}; returns
     * once {@code via} lists it as joining. A joiner serves before it asks to join, so its own
     * status shows it joining before the members have agreed: a member stopped then would refuse
     * the join itself rather than its stream.
     */
    private NodeProcess join(NodeProcess via, long bytesPerSecond) throws Exception {
        NodeProcess joining = new NodeProcess(TestPorts.free(), tmp.resolve("n3"), List.of("--join", via.url(),
                "--anti-entropy-interval", "0", "--rebalance-bytes-per-second", String.valueOf(bytesPerSecond)));
        cluster.nodes.add(joining);
        joining.startAndAwait();
        assertThat(NodeStatus.await(List.of(via), "\"joining\":[\"" + joining.url() + "\"]", Duration.ofSeconds(30)))
                .as(via.url() + " agreed to the join").isTrue();
        return joining;
    }

    /**
     * Stops {@code n} while {@code joining} joins, with {@code signal} (15: SIGTERM, which must end
     * it with 0; 9: SIGKILL), out of the clients' targets while it is down, and starts it again on
     * its data directory; with {@code untilStreamFails}, only once the joiner's stream from it has
     * failed.
     */
    private NodeProcess restart(NodeProcess n, MembershipTraffic traffic, int signal, NodeProcess joining,
                                boolean untilStreamFails) throws Exception {
        assertThat(NodeStatus.of(joining)).as("still joining when " + n.url() + " stops")
                .contains("\"joining\":[\"" + joining.url() + "\"]");
        traffic.targets.remove(n);
        if (signal == 9) n.kill();
        else assertThat(n.terminate(Duration.ofSeconds(30))).as(n.url() + " stops on SIGTERM").isZero();
        if (untilStreamFails) {
            // Its stream fails while it is down, unless it was already done: a member down 30 s
            // has the others send its keys instead (JoinReceiver), which can finish the next
            // member's stream sooner than it is stopped here.
            String failed = "the stream from " + n.url() + " failed";
            String done = "the stream from " + n.url() + " is done";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!joining.output().contains(failed) && !joining.output().contains(done) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(joining.output()).as("the stream from " + n.url() + " reached it while it was down, or was done")
                    .containsAnyOf(failed, done);
        } else {
            Thread.sleep(1_000);
        }
        NodeProcess again = new NodeProcess(n.port, n.data, QUIET);
        cluster.nodes.add(again);
        again.startAndAwait();
        traffic.targets.add(again);
        return again;
    }

    /**
     * Waits for the join to end, then checks the history, the agreement of {@code all} on the
     * membership (each of {@code selves}, their URLs, a member), each key's copies once the old
     * owners have cleaned up, and the streamed values.
     */
    private void finish(List<NodeProcess> all, List<String> selves, NodeProcess joining, MembershipTraffic traffic,
                        int bigKeys) throws Exception {
        assertThat(NodeStatus.await(all, "\"membershipVersion\":3", Duration.ofSeconds(90)))
                .as("every member on version 3 once the join ended").isTrue();
        traffic.targets.add(joining);
        Thread.sleep(2_000);
        traffic.stop();
        traffic.assertHistoryValid();
        assertThat(traffic.acked()).as("writes acknowledged during the join").isGreaterThan(20);

        String agreed = members(NodeStatus.of(joining));
        for (NodeProcess n : all) {
            String status = NodeStatus.of(n);
            assertThat(status).as(n.url()).contains("\"membershipVersion\":3", "\"joining\":[]", "\"leaving\":[]");
            assertThat(members(status)).as(n.url()).isEqualTo(agreed);
        }
        for (String self : selves) assertThat(agreed).contains("\"" + self + "\"");
        Map<String, Integer> copies = MembershipTraffic.copiesOnceSettled(cluster.requests, all,
                bigKeys + MembershipTraffic.KEYS, 3);
        assertThat(copies).hasSize(bigKeys + MembershipTraffic.KEYS);
        assertThat(copies.values()).as("copies per key").containsOnly(3);
        for (int k = 0; k < bigKeys; k += 7) {
            assertThat(cluster.requests.get(joining, "big" + k, 0, 0)).as("big" + k).isEqualTo(BIG + k + ";");
        }
    }

    /** The members list of a status body. */
    private static String members(String status) {
        Matcher m = Pattern.compile("\"members\":(\\[[^]]*])").matcher(status);
        assertThat(m.find()).as(status).isTrue();
        return m.group(1);
    }
}
