package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/dht cluster add} against a real launcher ({@code dht cluster}, its node processes its
 * children): the added node becomes a member on every node and serves every key, the launcher's
 * SIGTERM stops it with the others, and a restart on the same data brings it back.
 */
class ClusterAddProcessTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    @Test
    void anAddedNodeJoinsServesEveryKeyStopsWithTheClusterAndComesBack() throws Exception {
        int base = TestPorts.run(4);
        Path data = tmp.resolve("c");
        List<NodeProcess> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) nodes.add(new NodeProcess(base + i, tmp.resolve("unused"), List.of()));
        List<String> urls = nodes.stream().map(NodeProcess::url).sorted().toList();
        Path log = tmp.resolve("cluster.log");
        Process launcher = launch(3, base, data, log);
        Process again = null;
        try {
            awaitLine(log, "3 nodes ready");
            for (int i = 0; i < 200; i++) assertThat(cluster.requests.write(nodes.get(i % 3), "k" + i, "v" + i, 0, 0)).isEqualTo(201);

            DhtRun add = DhtRun.of(Duration.ofSeconds(90), "cluster", "add", "--data", data.toAbsolutePath().toString());
            assertThat(add.exitCode()).as("stderr: %s", add.stderr()).isZero();
            assertThat(add.stdout().strip()).isEqualTo(nodes.get(3).url());
            assertThat(Files.readAllLines(data.resolve(AddedNodes.NAME))).contains(String.valueOf(base + 3));
            NodeProcess fourth = nodes.get(3);
            for (NodeProcess n : nodes) {
                assertThat(StatusProbe.urls(NodeStatus.of(n), "members")).as("members on %s", n.url()).isEqualTo(urls);
            }
            // once it has answered, the old owners' cleanup is done: three copies of each key, no more
            java.util.Map<String, Integer> copies = new java.util.HashMap<>();
            for (NodeProcess n : nodes) for (String key : cluster.requests.local(n).keySet()) copies.merge(key, 1, Integer::sum);
            assertThat(copies).hasSize(200);
            assertThat(copies.values()).as("copies per key right after the add").containsOnly(3);
            long fourthPid = pid(fourth);
            List<ProcessHandle> children = launcher.children().toList();
            assertThat(children).hasSize(4).extracting(ProcessHandle::pid).contains(fourthPid);
            for (int i = 0; i < 200; i++) assertThat(cluster.requests.get(fourth, "k" + i, 0, 0)).as("k%d via the added node", i).isEqualTo("v" + i);
            assertThat(cluster.requests.write(fourth, "after", "a", 0, 0)).isEqualTo(201);

            launcher.destroy(); // SIGTERM
            assertThat(launcher.waitFor(60, TimeUnit.SECONDS)).as("the launcher exits").isTrue();
            assertThat(launcher.exitValue()).isZero();
            for (ProcessHandle child : children) {
                assertThat(child.onExit().get(30, TimeUnit.SECONDS).isAlive()).as("node pid %d", child.pid()).isFalse();
            }
            String out = Files.readString(log);
            assertThat(out).contains("node " + fourth.url() + " (pid " + fourthPid + ") stopped, exit code 0");
            assertThat(out.split("stopped, exit code 0", -1)).hasSize(5);

            // The same command again: the added node is started with the others and is a member on its kept membership.
            Path log2 = tmp.resolve("cluster2.log");
            again = launch(3, base, data, log2);
            awaitLine(log2, "4 nodes ready");
            assertThat(Files.readString(log2)).contains("  " + fourth.url() + " (added)");
            for (NodeProcess n : nodes) {
                assertThat(StatusProbe.urls(NodeStatus.of(n), "members")).as("members on %s after the restart", n.url()).isEqualTo(urls);
            }
            for (int i = 0; i < 200; i += 7) assertThat(cluster.requests.get(fourth, "k" + i, 0, 0)).isEqualTo("v" + i);
            assertThat(cluster.requests.get(nodes.getFirst(), "after", 0, 0)).isEqualTo("a");
            List<ProcessHandle> second = again.children().toList();
            assertThat(second).hasSize(4);
            again.destroy();
            assertThat(again.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(again.exitValue()).isZero();
            for (ProcessHandle child : second) assertThat(child.onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();
        } finally {
            killAll(launcher, again);
        }
    }

    /** A join the cluster refuses (one of two members is down: no majority can agree): exit 1 with the reason, nothing left behind. */
    @Test
    void aRefusedAddLeavesNeitherRecordNorDirectoryAndTheClusterGoesOn() throws Exception {
        int base = TestPorts.run(3);
        Path data = tmp.resolve("c");
        Path log = tmp.resolve("cluster.log");
        Process launcher = launch(2, base, data, log);
        try {
            awaitLine(log, "2 nodes ready");
            NodeProcess second = new NodeProcess(base + 1, tmp.resolve("unused"), List.of());
            ProcessHandle victim = ProcessHandle.of(pid(second)).orElseThrow();
            victim.destroyForcibly();
            assertThat(victim.onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();

            DhtRun add = DhtRun.of(Duration.ofSeconds(90), "cluster", "add", "--data", data.toAbsolutePath().toString());
            assertThat(add.exitCode()).as("stdout: %s", add.stdout()).isEqualTo(1);
            assertThat(add.stderr()).contains("dht cluster add: node http://localhost:" + (base + 2) + " was not added: cannot join through");
            assertThat(data.resolve("node-" + (base + 2))).doesNotExist();
            assertThat(Files.readAllLines(data.resolve(AddedNodes.NAME))).noneMatch(l -> l.equals(String.valueOf(base + 2)));
            assertThat(launcher.isAlive()).as("the launcher goes on with the node it has").isTrue();
            assertThat(launcher.children().count()).isEqualTo(1);

            launcher.destroy();
            assertThat(launcher.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(launcher.exitValue()).isZero();
        } finally {
            killAll(launcher);
        }
    }

    /** An added node that leaves has left for good: the launcher says so and the next start does not bring it back. */
    @Test
    void anAddedNodeThatLeavesIsNoLongerRecorded() throws Exception {
        int base = TestPorts.run(3);
        Path data = tmp.resolve("c");
        Path log = tmp.resolve("cluster.log");
        Process launcher = launch(2, base, data, log);
        try {
            awaitLine(log, "2 nodes ready");
            DhtRun add = DhtRun.of(Duration.ofSeconds(90), "cluster", "add", "--data", data.toAbsolutePath().toString());
            assertThat(add.exitCode()).as("stderr: %s", add.stderr()).isZero();
            String url = add.stdout().strip();
            assertThat(url).isEqualTo("http://localhost:" + (base + 2));

            DhtRun leave = DhtRun.of(Duration.ofSeconds(90), "leave", "--url", url,
                    "--cluster-secret-file", data.resolve(ClusterSecretFile.NAME).toString());
            assertThat(leave.exitCode()).as("stderr: %s", leave.stderr()).isZero();
            awaitLine(log, "node " + url + " (pid ");
            awaitLine(log, ") left the cluster; the next start will not bring it back");
            assertThat(Files.readAllLines(data.resolve(AddedNodes.NAME))).noneMatch(l -> l.equals(String.valueOf(base + 2)));
            assertThat(launcher.isAlive()).isTrue();

            launcher.destroy();
            assertThat(launcher.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(launcher.exitValue()).isZero();
        } finally {
            killAll(launcher);
        }
    }

    /**
     * An added node removed while it was down keeps a membership that lists it; the next start
     * goes by the newest membership any node keeps, so it does not come back.
     */
    @Test
    void anAddedNodeRemovedWhileDownIsNotStartedAgain() throws Exception {
        int base = TestPorts.run(3);
        Path data = tmp.resolve("c");
        Path log = tmp.resolve("cluster.log");
        Process launcher = launch(2, base, data, log);
        Process again = null;
        try {
            awaitLine(log, "2 nodes ready");
            DhtRun add = DhtRun.of(Duration.ofSeconds(90), "cluster", "add", "--data", data.toAbsolutePath().toString());
            assertThat(add.exitCode()).as("stderr: %s", add.stderr()).isZero();
            NodeProcess third = new NodeProcess(base + 2, tmp.resolve("unused"), List.of());
            ProcessHandle victim = ProcessHandle.of(pid(third)).orElseThrow();
            victim.destroyForcibly();
            assertThat(victim.onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();
            DhtRun remove = DhtRun.of(Duration.ofSeconds(90), "remove", "--url", third.url(), "--via", "http://localhost:" + base,
                    "--cluster-secret-file", data.resolve(ClusterSecretFile.NAME).toString());
            assertThat(remove.exitCode()).as("stderr: %s", remove.stderr()).isZero();
            launcher.destroy();
            assertThat(launcher.waitFor(60, TimeUnit.SECONDS)).isTrue();

            Path log2 = tmp.resolve("cluster2.log");
            again = launch(2, base, data, log2);
            awaitLine(log2, "2 nodes ready");
            assertThat(Files.readString(log2)).contains("node-" + (base + 2) + " is no longer a member")
                    .doesNotContain(third.url() + " (added)");
            assertThat(Files.readAllLines(data.resolve(AddedNodes.NAME))).noneMatch(l -> l.equals(String.valueOf(base + 2)));
            assertThat(again.children().toList()).hasSize(2);
        } finally {
            killAll(launcher, again);
        }
    }

    /** A node killed once its join is over is a member: add says so, not that it died joining. */
    @Test
    void anAddedNodeKilledRightAfterItJoinedIsReportedAsAMember() throws Exception {
        int base = TestPorts.run(3);
        Path data = tmp.resolve("c");
        Path log = tmp.resolve("cluster.log");
        Process launcher = launch(2, base, data, log);
        try {
            awaitLine(log, "2 nodes ready");
            NodeProcess first = new NodeProcess(base, tmp.resolve("unused"), List.of());
            for (int i = 0; i < 50; i++) assertThat(cluster.requests.write(first, "k" + i, "v" + i, 0, 0)).isEqualTo(201);
            var add = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return DhtRun.of(Duration.ofSeconds(90), "cluster", "add", "--data", data.toAbsolutePath().toString());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // Its join ends, then add waits for the old owners' cleanup (about 5 s): kill it in between.
            NodeProcess third = new NodeProcess(base + 2, tmp.resolve("unused"), List.of());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            String status = null;
            while (!add.isDone() && System.nanoTime() < deadline) {
                try {
                    status = NodeStatus.of(third);
                } catch (Exception notYet) {
                    status = null;
                }
                if (status != null && StatusProbe.urls(status, "members").contains(third.url())) break;
                Thread.sleep(50);
            }
            assertThat(add.isDone()).as("add still waits for the cleanup once the node is a member").isFalse();
            ProcessHandle victim = ProcessHandle.of(pid(third)).orElseThrow();
            victim.destroyForcibly();
            DhtRun done = add.get(90, TimeUnit.SECONDS);
            assertThat(done.exitCode()).isEqualTo(1);
            assertThat(done.stdout() + done.stderr()).contains("after it joined", "it is a member").doesNotContain("while joining");
        } finally {
            killAll(launcher);
        }
    }

    @Test
    void anAddWithNoClusterRunningOnTheDataSaysSo() throws Exception {
        Path data = tmp.resolve("none");
        DhtRun add = DhtRun.of(Duration.ofSeconds(30), "cluster", "add", "--data", data.toString());
        assertThat(add.exitCode()).isEqualTo(1);
        assertThat(add.stderr()).contains("dht cluster add: no 'dht cluster' runs on " + data.toAbsolutePath());
        assertThat(data).doesNotExist();
    }

    /** Kills each launcher given (null: none) and every process it started. */
    private static void killAll(Process... launchers) {
        for (Process p : launchers) {
            if (p == null) continue;
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    private static long pid(NodeProcess n) throws Exception {
        Matcher m = Pattern.compile("\"pid\":(\\d+)").matcher(NodeStatus.of(n));
        assertThat(m.find()).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** {@code dht cluster --nodes N} in {@code tmp}, with {@code data} relative to it, as a user types it. */
    private Process launch(int nodes, int base, Path data, Path log) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "cluster",
                "--nodes", String.valueOf(nodes), "--base-port", String.valueOf(base), "--data", tmp.relativize(data).toString()));
        return new ProcessBuilder(cmd).directory(tmp.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    private static void awaitLine(Path log, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!Files.readString(log).contains(text) && System.nanoTime() < deadline) Thread.sleep(100);
        assertThat(Files.readString(log)).contains(text);
    }
}
