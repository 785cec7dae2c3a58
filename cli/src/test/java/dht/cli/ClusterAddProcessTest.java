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
        for (int i = 0; i < 4; i++) nodes.add(node(base + i));
        List<String> urls = nodes.stream().map(NodeProcess::url).sorted().toList();
        NodeProcess fourth = nodes.get(3);
        Path log = tmp.resolve("cluster.log");
        try (Launched launched = launch(3, base, data, log, 3)) {
            for (int i = 0; i < 200; i++) assertThat(cluster.requests.write(nodes.get(i % 3), "k" + i, "v" + i, 0, 0)).isEqualTo(201);

            assertThat(add(data)).isEqualTo(fourth.url());
            assertThat(Files.readAllLines(data.resolve(AddedNodes.NAME))).contains(String.valueOf(base + 3));
            for (NodeProcess n : nodes) {
                assertThat(StatusProbe.urls(NodeStatus.of(n), "members")).as("members on %s", n.url()).isEqualTo(urls);
            }
            // once it has answered, the old owners' cleanup is done: three copies of each key, no more
            java.util.Map<String, Integer> copies = new java.util.HashMap<>();
            for (NodeProcess n : nodes) for (String key : cluster.requests.local(n).keySet()) copies.merge(key, 1, Integer::sum);
            assertThat(copies).hasSize(200);
            assertThat(copies.values()).as("copies per key right after the add").containsOnly(3);
            long fourthPid = pid(fourth);
            List<ProcessHandle> children = launched.process().children().toList();
            assertThat(children).hasSize(4).extracting(ProcessHandle::pid).contains(fourthPid);
            for (int i = 0; i < 200; i++) assertThat(cluster.requests.get(fourth, "k" + i, 0, 0)).as("k%d via the added node", i).isEqualTo("v" + i);
            assertThat(cluster.requests.write(fourth, "after", "a", 0, 0)).isEqualTo(201);

            launched.stop();
            for (ProcessHandle child : children) {
                assertThat(child.onExit().get(30, TimeUnit.SECONDS).isAlive()).as("node pid %d", child.pid()).isFalse();
            }
            String out = Files.readString(log);
            assertThat(out).contains("node " + fourth.url() + " (pid " + fourthPid + ") stopped, exit code 0");
            assertThat(out.split("stopped, exit code 0", -1)).hasSize(5);
        }

        // The same command again: the added node is started with the others and is a member on its kept membership.
        Path log2 = tmp.resolve("cluster2.log");
        try (Launched again = launch(3, base, data, log2, 4)) {
            assertThat(Files.readString(log2)).contains("  " + fourth.url() + " (added)");
            for (NodeProcess n : nodes) {
                assertThat(StatusProbe.urls(NodeStatus.of(n), "members")).as("members on %s after the restart", n.url()).isEqualTo(urls);
            }
            for (int i = 0; i < 200; i += 7) assertThat(cluster.requests.get(fourth, "k" + i, 0, 0)).isEqualTo("v" + i);
            assertThat(cluster.requests.get(nodes.getFirst(), "after", 0, 0)).isEqualTo("a");
            List<ProcessHandle> second = again.process().children().toList();
            assertThat(second).hasSize(4);
            again.stop();
            for (ProcessHandle child : second) assertThat(child.onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();
        }
    }

    /** A join the cluster refuses (one of two members is down: no majority can agree): exit 1 with the reason, nothing left behind. */
    @Test
    void aRefusedAddLeavesNeitherRecordNorDirectoryAndTheClusterGoesOn() throws Exception {
        int base = TestPorts.run(3);
        Path data = tmp.resolve("c");
        try (Launched launched = launch(2, base, data, tmp.resolve("cluster.log"), 2)) {
            kill(node(base + 1));

            DhtRun add = DhtRun.of(Duration.ofSeconds(90), "cluster", "add", "--data", data.toAbsolutePath().toString());
            assertThat(add.exitCode()).as("stdout: %s", add.stdout()).isEqualTo(1);
            assertThat(add.stderr()).contains("dht cluster add: node http://localhost:" + (base + 2) + " was not added: cannot join through");
            assertThat(data.resolve("node-" + (base + 2))).doesNotExist();
            assertThat(Files.readAllLines(data.resolve(AddedNodes.NAME))).noneMatch(l -> l.equals(String.valueOf(base + 2)));
            assertThat(launched.process().isAlive()).as("the launcher goes on with the node it has").isTrue();
            assertThat(launched.process().children().count()).isEqualTo(1);
            launched.stop();
        }
    }

    /**
     * A frozen member never answers, so it never lists the new node: the add must not wait for it
     * for ever (it did, printing "joining" long after the join was over). Once the node is a member
     * by its own status the wait is bounded, and the add says which node it left behind.
     */
    @Test
    void anAddReturnsWhileAMemberIsFrozenAndNamesIt() throws Exception {
        int base = TestPorts.run(4);
        Path data = tmp.resolve("c");
        NodeProcess frozen = node(base + 2);
        long frozenPid;
        try (Launched launched = launch(3, base, data, tmp.resolve("cluster.log"), 3, "--add-wait", "5")) {
            for (int i = 0; i < 50; i++) assertThat(cluster.requests.write(node(base + i % 2), "k" + i, "v" + i, 0, 0)).isEqualTo(201);
            frozenPid = pid(frozen);
            signal("STOP", frozenPid);
            try {
                DhtRun add = DhtRun.of(Duration.ofSeconds(240), "cluster", "add", "--data", data.toAbsolutePath().toString());
                assertThat(add.exitCode()).as("stderr: %s", add.stderr()).isZero();
                assertThat(add.stdout().strip()).isEqualTo("http://localhost:" + (base + 3));
                assertThat(add.stderr()).contains("1 node did not list it among their members within 5 s (" + frozen.url() + ")");
                assertThat(StatusProbe.urls(NodeStatus.of(node(base)), "members")).contains("http://localhost:" + (base + 3));
            } finally {
                signal("CONT", frozenPid);
            }
            launched.stop();
        }
    }

    private static void signal(String name, long pid) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + name, String.valueOf(pid)).inheritIO().start().waitFor()).isZero();
    }

    /** An added node that leaves has left for good: the launcher says so and the next start does not bring it back. */
    @Test
    void anAddedNodeThatLeavesIsNoLongerRecorded() throws Exception {
        int base = TestPorts.run(3);
        Path data = tmp.resolve("c");
        Path log = tmp.resolve("cluster.log");
        try (Launched launched = launch(2, base, data, log, 2)) {
            String url = add(data);
            assertThat(url).isEqualTo("http://localhost:" + (base + 2));

            DhtRun leave = DhtRun.of(Duration.ofSeconds(90), "leave", "--url", url,
                    "--cluster-secret-file", data.resolve(ClusterSecretFile.NAME).toString());
            assertThat(leave.exitCode()).as("stderr: %s", leave.stderr()).isZero();
            awaitLine(log, "node " + url + " (pid ");
            awaitLine(log, ") left the cluster; the next start will not bring it back");
            assertThat(Files.readAllLines(data.resolve(AddedNodes.NAME))).noneMatch(l -> l.equals(String.valueOf(base + 2)));
            assertThat(launched.process().isAlive()).isTrue();
            launched.stop();
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
        NodeProcess third = node(base + 2);
        try (Launched launched = launch(2, base, data, tmp.resolve("cluster.log"), 2)) {
            add(data);
            kill(third);
            DhtRun remove = DhtRun.of(Duration.ofSeconds(90), "remove", "--url", third.url(), "--via", "http://localhost:" + base,
                    "--cluster-secret-file", data.resolve(ClusterSecretFile.NAME).toString());
            assertThat(remove.exitCode()).as("stderr: %s", remove.stderr()).isZero();
            launched.stop();
        }
        Path log2 = tmp.resolve("cluster2.log");
        try (Launched again = launch(2, base, data, log2, 2)) {
            assertThat(Files.readString(log2)).contains("node-" + (base + 2) + " is no longer a member")
                    .doesNotContain(third.url() + " (added)");
            assertThat(Files.readAllLines(data.resolve(AddedNodes.NAME))).noneMatch(l -> l.equals(String.valueOf(base + 2)));
            assertThat(again.process().children().toList()).hasSize(2);
        }
    }

    /** A node killed once its join is over is a member: add says so, not that it died joining. */
    @Test
    void anAddedNodeKilledRightAfterItJoinedIsReportedAsAMember() throws Exception {
        int base = TestPorts.run(3);
        Path data = tmp.resolve("c");
        try (Launched launched = launch(2, base, data, tmp.resolve("cluster.log"), 2)) {
            NodeProcess first = node(base);
            for (int i = 0; i < 50; i++) assertThat(cluster.requests.write(first, "k" + i, "v" + i, 0, 0)).isEqualTo(201);
            var add = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return DhtRun.of(Duration.ofSeconds(90), "cluster", "add", "--data", data.toAbsolutePath().toString());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // Its join ends, then add waits for the old owners' cleanup (about 5 s): kill it in between.
            NodeProcess third = node(base + 2);
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

    /** A running {@code dht cluster} whose nodes said they are ready; closing it kills it and every node it started. */
    private record Launched(Process process) implements AutoCloseable {
        /** SIGTERM, as Ctrl-C: the launcher stops its nodes and exits 0 within a minute. */
        void stop() throws InterruptedException {
            process.destroy();
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the launcher exits").isTrue();
            assertThat(process.exitValue()).isZero();
        }

        @Override
        public void close() {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    /** {@code bin/dht cluster add} on the launcher's data: exit 0, and the added node's URL, which it prints. */
    private static String add(Path data) throws Exception {
        DhtRun add = DhtRun.of(Duration.ofSeconds(90), "cluster", "add", "--data", data.toAbsolutePath().toString());
        assertThat(add.exitCode()).as("stderr: %s", add.stderr()).isZero();
        return add.stdout().strip();
    }

    /** The launcher's node on PORT, to address (this test starts no process for it). */
    private NodeProcess node(int port) {
        return new NodeProcess(port, tmp.resolve("unused"), List.of());
    }

    /** SIGKILL of a node process the launcher started. */
    private static void kill(NodeProcess n) throws Exception {
        ProcessHandle victim = ProcessHandle.of(pid(n)).orElseThrow();
        victim.destroyForcibly();
        assertThat(victim.onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();
    }

    private static long pid(NodeProcess n) throws Exception {
        Matcher m = Pattern.compile("\"pid\":(\\d+)").matcher(NodeStatus.of(n));
        assertThat(m.find()).isTrue();
        return Long.parseLong(m.group(1));
    }

    /**
     * {@code dht cluster --nodes N} in {@code tmp}, with {@code data} relative to it, as a user types
     * it, once its log says READY nodes are ready (more than N when it brings added nodes back).
     */
    private Launched launch(int nodes, int base, Path data, Path log, int ready, String... options) throws Exception {
        Launched launched = new Launched(start(nodes, base, data, log, options));
        try {
            awaitLine(log, ready + " nodes ready");
            return launched;
        } catch (Throwable e) {
            launched.close();
            throw e;
        }
    }

    private Process start(int nodes, int base, Path data, Path log, String... options) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "cluster",
                "--nodes", String.valueOf(nodes), "--base-port", String.valueOf(base), "--data", tmp.relativize(data).toString()));
        cmd.addAll(List.of(options));
        return new ProcessBuilder(cmd).directory(tmp.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    private static void awaitLine(Path log, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!Files.readString(log).contains(text) && System.nanoTime() < deadline) Thread.sleep(100);
        assertThat(Files.readString(log)).contains(text);
    }
}
