package dht.cli;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code dht serve} as a real process: start, stop, kill, restart, refuse bad starts. */
class ServeProcessTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private NodeProcess node(Path data, String... args) throws Exception {
        NodeProcess n = new NodeProcess(TestPorts.free(), data, List.of(args));
        cluster.nodes.add(n);
        return n;
    }

    /** The answer's status; an exception when none came (the node died under the request). */
    private int put(NodeProcess n, String key, String value) {
        return cluster.requests.write(n, key, value, 0, 0);
    }

    /** The value, "404", or another answer's status. */
    private String get(NodeProcess n, String key) {
        return cluster.requests.get(n, key, 0, 0);
    }

    @Test
    void sigtermStopsGracefullyWithExitZeroAndKeepsData() throws Exception {
        NodeProcess n = node(tmp.resolve("d")).startAndAwait();
        for (int i = 0; i < 200; i++) assertThat(put(n, "key" + i, "value" + i)).isEqualTo(201);

        long t0 = System.nanoTime();
        assertThat(n.terminate(Duration.ofSeconds(10))).as("exit code after SIGTERM").isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));

        n.startAndAwait();
        for (int i = 0; i < 200; i++) assertThat(get(n, "key" + i)).isEqualTo("value" + i);
    }

    @Test
    void nettysNativeLibraryStaysReadableForTheProfilerUntilAGracefulStop() throws Exception {
        Path jtmp = java.nio.file.Files.createDirectories(tmp.resolve("jtmp"));
        NodeProcess n = node(tmp.resolve("d")).startAndAwait("-Djava.io.tmpdir=" + jtmp);
        Path dir;
        try (var made = java.nio.file.Files.list(jtmp)) {
            dir = made.filter(d -> d.getFileName().toString().startsWith("dht-native-" + n.process().pid() + "-")).findFirst().orElseThrow();
        }
        // A profiler started later reads the library's symbols from its file: it must still exist.
        List<String> netty = java.nio.file.Files.readAllLines(Path.of("/proc/" + n.process().pid() + "/maps")).stream()
                .filter(l -> l.contains("libnetty_transport_native_")).toList(); // epoll or io_uring
        assertThat(netty).isNotEmpty().allSatisfy(l -> {
            assertThat(l).contains(dir.toString()).doesNotContain("(deleted)");
        });

        assertThat(n.terminate(Duration.ofSeconds(10))).isZero();
        assertThat(dir).doesNotExist();
    }

    @Test
    void everyAcknowledgedWriteSurvivesSigkill() throws Exception {
        NodeProcess n = node(tmp.resolve("d")).startAndAwait();
        ConcurrentLinkedQueue<String> acked = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            int id = w;
            writers.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; !stop.get(); i++) {
                    String key = "w" + id + "-" + i;
                    try {
                        if (put(n, key, "v-" + key) == 201) acked.add(key);
                    } catch (Exception e) {
                        return; // the node died under us: this write was not acknowledged
                    }
                }
            }));
        }
        Thread.sleep(1500);
        n.kill();
        stop.set(true);
        for (Thread t : writers) t.join(TimeUnit.SECONDS.toMillis(15));
        assertThat(acked).hasSizeGreaterThan(50);

        n.startAndAwait();
        for (String key : acked) assertThat(get(n, key)).as("acknowledged key %s after SIGKILL", key).isEqualTo("v-" + key);
    }

    @Test
    void secondNodeOnSameDataDirectoryFailsFastAndTouchesNothing() throws Exception {
        Path data = tmp.resolve("shared");
        NodeProcess first = node(data).startAndAwait();
        assertThat(put(first, "k", "v")).isEqualTo(201);

        NodeProcess second = node(data).start();
        assertThat(second.process().waitFor(20, TimeUnit.SECONDS)).as("second node exits by itself").isTrue();
        assertThat(second.process().exitValue()).isNotZero();
        assertThat(second.output()).containsIgnoringCase("in use");

        assertThat(get(first, "k")).isEqualTo("v");
    }

    /** The same command run twice: the port is taken too, but the directory is what to report. */
    @Test
    void theSameNodeStartedTwiceSaysItsDataDirectoryIsInUse() throws Exception {
        Path data = tmp.resolve("twice");
        NodeProcess first = node(data).startAndAwait();
        NodeProcess second = new NodeProcess(first.port, data, List.of());
        cluster.nodes.add(second);
        second.start();
        assertThat(second.process().waitFor(20, TimeUnit.SECONDS)).as("second node exits by itself").isTrue();
        assertThat(second.process().exitValue()).isNotZero();
        assertThat(second.output()).contains("data directory").contains("in use").contains("port " + first.port);
        assertThat(put(first, "k", "v")).isEqualTo(201);
    }

    /** A port another process holds: said in words, exit 1, and the data directory left untouched. */
    @Test
    void aPortInUseIsSaidInWords() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(TestPorts.free())) {
            NodeProcess n = new NodeProcess(taken.getLocalPort(), tmp.resolve("d"), List.of());
            cluster.nodes.add(n);
            n.start();
            assertThat(n.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(n.process().exitValue()).isEqualTo(1);
            assertThat(n.output()).contains("dht serve: cannot listen on port " + taken.getLocalPort()
                    + ": another process already listens there (--port chooses another)").doesNotContain("error(-98)");
            assertThat(tmp.resolve("d")).doesNotExist();
        }
    }

    @Test
    void selfOutsideTheClusterIsRefused() throws Exception {
        NodeProcess n = node(tmp.resolve("d"), "--cluster", "http://localhost:1,http://localhost:2",
                "--self", "http://localhost:3").start();
        assertThat(n.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(n.process().exitValue()).isNotZero();
        assertThat(n.output()).contains("--self").contains("--cluster");
    }

    /** The cluster command ends on a halt in its shutdown hook; a failed start must still say so. */
    @Test
    void aClusterWhoseNodeCannotStartExitsNonZero() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
            List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                    "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx128m",
                    "-cp", System.getProperty("java.class.path"), Main.class.getName(), "cluster",
                    "--nodes", "1", "--base-port", String.valueOf(taken.getLocalPort()),
                    "--data", tmp.resolve("c").toString()));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(tmp.resolve("cluster.log").toFile())).start();
            try {
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(p.exitValue()).isEqualTo(1);
                assertThat(java.nio.file.Files.readString(tmp.resolve("cluster.log")))
                        .contains("not every node became ready");
            } finally {
                p.destroyForcibly();
            }
        }
    }

    /** Run in {@code tmp} with {@code data} relative to it, as a user types {@code --data ./cluster-data}. */
    private Process launchCluster(int nodes, int basePort, Path data, Path log) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "cluster",
                "--nodes", String.valueOf(nodes), "--base-port", String.valueOf(basePort), "--data", tmp.relativize(data).toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().put("DHT_LAUNCHER", LAUNCHER); // what bin/dht exports: its own absolute path
        return pb.start();
    }

    private static final String LAUNCHER = "/opt/dht/bin/dht";

    private static void awaitClusterReady(Path log, int nodes) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!java.nio.file.Files.readString(log).contains(" ready:") && System.nanoTime() < deadline) Thread.sleep(100);
        assertThat(java.nio.file.Files.readString(log)).contains(nodes + " nodes ready");
    }

    /** Another node answering on the port must not pass for the cluster's own (which cannot listen there). */
    @Test
    void aClusterOnAPortAnotherNodeServesFailsInsteadOfSayingReady() throws Exception {
        NodeProcess other = node(tmp.resolve("other")).startAndAwait();
        Path log = tmp.resolve("cluster.log");
        Process p = launchCluster(1, other.port, tmp.resolve("c"), log);
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exits").isTrue();
            assertThat(p.exitValue()).isEqualTo(1);
            assertThat(java.nio.file.Files.readString(log)).contains("not every node became ready").doesNotContain(" ready:");
        } finally {
            p.destroyForcibly();
        }
    }

    /** SIGTERM to the launcher stops every node gracefully, each one's stop lines and exit code shown. */
    @Test
    void aStoppedClusterShowsEveryNodesGracefulStop() throws Exception {
        int base = TestPorts.run(2);
        Path log = tmp.resolve("cluster.log");
        Process p = launchCluster(2, base, tmp.resolve("c"), log);
        try {
            awaitClusterReady(log, 2);
            p.destroy(); // SIGTERM
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
            String out = java.nio.file.Files.readString(log);
            for (int port : new int[] {base, base + 1}) {
                assertThat(out).as("node %d", port).containsPattern("\\[" + port + "\\] .*Node - node http://\\S+:" + port + " stopped in");
            }
            assertThat(out).doesNotContain("launcher has exited");
            assertThat(out.split("stopped, exit code 0", -1)).hasSize(3);
        } finally {
            p.destroyForcibly();
            p.descendants().forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** Killing a node of the cluster is how to try failover: the launcher names it and prints the command that brings it back. */
    @Test
    void aKilledClusterNodeIsNamedWithTheCommandThatBringsItBack() throws Exception {
        int base = TestPorts.run(2);
        Path log = tmp.resolve("cluster.log");
        Process p = launchCluster(2, base, tmp.resolve("c"), log);
        Process back = null;
        try {
            awaitClusterReady(log, 2);
            String port = String.valueOf(base + 1);
            // The node says its own pid: a child's arguments are no way to tell which it is, since the
            // JDK may read a command line as long as the test's class path only in part.
            String own = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/v0/status")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            java.util.regex.Matcher pid = java.util.regex.Pattern.compile("\"pid\":(\\d+)").matcher(own);
            assertThat(pid.find()).as("pid in %s", own).isTrue();
            ProcessHandle victim = ProcessHandle.of(Long.parseLong(pid.group(1))).orElseThrow();
            assertThat(p.children().map(ProcessHandle::pid)).as("a node the launcher started").contains(victim.pid());
            new ProcessBuilder("kill", "-9", String.valueOf(victim.pid())).start().waitFor();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!java.nio.file.Files.readString(log).contains("  " + LAUNCHER + " serve") && System.nanoTime() < deadline) Thread.sleep(100);
            String out = java.nio.file.Files.readString(log);
            assertThat(out).contains("node http://localhost:" + port + " (pid " + victim.pid() + ") exited with 137");
            String command = out.lines().filter(l -> l.startsWith("  " + LAUNCHER + " serve")).findFirst().orElseThrow();

            // The printed command, run as it is, brings the node back on its own data: the cluster takes writes at 2/2 again.
            List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                    "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx128m",
                    "-cp", System.getProperty("java.class.path"), Main.class.getName()));
            cmd.addAll(List.of(command.substring(("  " + LAUNCHER + " ").length()).split(" ")));
            // absolute, though the cluster was given a relative --data: the command works from any directory
            assertThat(cmd).contains(tmp.resolve("c").resolve("node-" + port).toAbsolutePath().toString());
            back = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("back.log").toFile()).start();
            NodeProcess viaFirst = new NodeProcess(base, tmp.resolve("unused"), List.of());
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int status = 0;
            while (status != 201 && System.nanoTime() < deadline) {
                try {
                    status = put(viaFirst, "k", "v");
                } catch (dht.client.DhtException e) { // no answer yet
                    status = 0;
                }
                if (status != 201) Thread.sleep(200);
            }
            assertThat(status).as("PUT 2/2 once the node is back").isEqualTo(201);

            p.destroy(); // SIGTERM: the launcher stops the node it still runs, and does not report the dead one again
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
            assertThat(java.nio.file.Files.readString(log)).doesNotContain("(pid " + victim.pid() + ") stopped")
                    .contains("node http://localhost:" + base + " (pid");
        } finally {
            if (back != null) back.destroyForcibly();
            p.destroyForcibly();
            p.descendants().forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** A launcher killed with SIGKILL cannot stop its nodes itself: they notice and stop on their own. */
    @Test
    void theNodesOfAKilledClusterLauncherStop() throws Exception {
        int base = TestPorts.run(2);
        Path log = tmp.resolve("cluster.log");
        Process p = launchCluster(2, base, tmp.resolve("c"), log);
        try {
            awaitClusterReady(log, 2);
            List<ProcessHandle> children = p.children().toList();
            assertThat(children).hasSize(2);
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            for (ProcessHandle child : children) {
                assertThat(child.onExit().get(30, TimeUnit.SECONDS).isAlive()).as("node pid %d", child.pid()).isFalse();
            }
        } finally {
            p.destroyForcibly();
            p.descendants().forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** A -D setting the node does not know: said in one line, exit 2, before the data directory is touched. */
    @Test
    void aBadSettingIsRefusedBeforeTheDataDirectoryIsTouched() throws Exception {
        Path data = tmp.resolve("bad-setting");
        NodeProcess n = node(data).start("-Ddht.storage.threads=bogus");
        assertThat(n.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(n.process().exitValue()).isEqualTo(2);
        assertThat(n.output()).contains("dht serve: -Ddht.storage.threads must be a whole number of threads from 1 to 10000, not 'bogus'")
                .doesNotContain("\tat ").doesNotContain("--help");
        assertThat(Files.exists(data)).as("the data directory, not created").isFalse();
    }

    @Test
    void limitsThatCannotWorkAreRefusedWithTheReasonAndAPointerToTheHelp() throws Exception {
        // (the nodes run with -Xmx128m: a 64 MiB body would not fit their direct memory)
        for (List<String> bad : List.of(List.of("--max-body", "-1"), List.of("--max-body", "67108864"),
                List.of("--memtable-size", "0"), List.of("--max-uri", "0"))) {
            NodeProcess n = node(tmp.resolve("d" + bad.hashCode()), bad.toArray(String[]::new)).start();
            assertThat(n.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(n.process().exitValue()).as("%s", bad).isEqualTo(2);
            assertThat(n.output()).as("%s", bad).contains("dht serve: " + bad.getFirst())
                    .contains("Try 'dht serve --help' for more information.").doesNotContain("\tat ");
        }
    }

    @Test
    void aDataPathThatIsAFileFailsInOneLine() throws Exception {
        Path file = tmp.resolve("a-file");
        java.nio.file.Files.writeString(file, "not a directory");
        NodeProcess n = node(file).start();
        assertThat(n.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(n.process().exitValue()).isEqualTo(1);
        assertThat(n.output()).contains("dht serve: cannot open the data directory " + file + ": it is a file, not a directory")
                .doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(java.nio.file.Files.readString(file)).isEqualTo("not a directory");
    }

    @Test
    void aDamagedManifestFailsTheStartInOneLine() throws Exception {
        Path data = tmp.resolve("d");
        java.nio.file.Files.createDirectories(data);
        java.nio.file.Files.write(data.resolve("MANIFEST"), "x".repeat(64).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        NodeProcess n = node(data).start();
        assertThat(n.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(n.process().exitValue()).isEqualTo(1);
        assertThat(n.output()).contains("dht serve: cannot open the data directory " + data + ": ").contains("MANIFEST")
                .doesNotContain("\tat ");
    }

    @Test
    void aNegativeEventLoopCountIsRefused() throws Exception {
        NodeProcess n = node(tmp.resolve("d"), "--io-threads", "-1").start();
        assertThat(n.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(n.process().exitValue()).isNotZero();
        assertThat(n.output()).contains("--io-threads");
    }
}
