package dht.cli;

import dht.node.text.Plural;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bin/dht cluster --nodes N}: a local cluster of N real node processes, for trying things
 * out. Each node's output is prefixed with its port. Ctrl-C (or SIGTERM) stops them all gracefully.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Start a local cluster of N node processes; Ctrl-C stops them all.")
final class ClusterCommand implements Callable<Integer> {
    @Option(names = "--nodes", defaultValue = "3", description = "How many nodes (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--base-port", defaultValue = "8080",
            description = "Port of the first node; the others follow (default: ${DEFAULT-VALUE}).")
    int basePort;

    @Option(names = "--data", defaultValue = "./cluster-data",
            description = "Parent of the nodes' data directories, one per port (default: ${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--host", defaultValue = "localhost", description = "Host name in the node URLs (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--replication-factor", paramLabel = "N",
            description = "Copies of each key by default, 1..--nodes (default: --nodes, a copy on every node).")
    Integer replicationFactor;

    @Spec
    CommandSpec spec;

    /**
     * The nodes share this machine's cores, so each gets its share of a lone node's default (one
     * event loop per core), at least one: more loops than cores only add wake-ups and hand-offs
     * between them (docs/benchmarks.md, "The generator's spinning, and one event loop per node").
     */
    static int ioThreadsPerNode(int nodes) {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / nodes);
    }

    /** One started node: its URL, the {@code serve} arguments it runs with, its process, and the thread printing its output. */
    private record LocalNode(String url, List<String> serveArgs, Process process, Thread output) {
        /** How the launcher's lines name it. */
        String name() {
            return url + " (pid " + process.pid() + ")";
        }
    }

    @Override
    public Integer call() throws Exception {
        // Checked before any node starts: a port out of range is bad usage (exit 2), not a node
        // that fails to start after the ones below it did (exit 1, a runtime failure).
        if (nodes < 1 || nodes > 64) throw new ParameterException(spec.commandLine(), "--nodes must be 1..64, got " + nodes);
        if (basePort < 1 || basePort > 65535 - (nodes - 1)) {
            throw new ParameterException(spec.commandLine(), "--base-port must be 1.." + (65535 - (nodes - 1))
                    + " for " + Plural.of(nodes, "node") + " (ports base-port to base-port + nodes - 1), got " + basePort);
        }
        if (replicationFactor != null && (replicationFactor < 1 || replicationFactor > nodes)) {
            throw new ParameterException(spec.commandLine(), "--replication-factor must be 1.." + nodes + " (--nodes), got "
                    + replicationFactor);
        }
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < nodes; i++) urls.add("http://" + host + ":" + (basePort + i));
        String clusterArg = String.join(",", urls);
        List<LocalNode> started = new ArrayList<>(); // guarded by itself: the stop hook reads it
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        // The hook ends the process with halt (the main thread may still be waiting), so it carries
        // the exit code: 0 for a stop on a signal, 1 once the start has failed.
        AtomicInteger exitCode = new AtomicInteger();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopping.set(true);
            stopAll(started);
            stopped.countDown();
            Runtime.getRuntime().halt(exitCode.get());
        }, "dht-cluster-stop"));
        try {
            // One secret for the cluster, beside the nodes' directories: internal paths answer only its holders.
            Files.createDirectories(data);
            Path secret = DataDirectory.absolute(ClusterSecretFile.createIfAbsent(data));
            for (int i = 0; i < nodes; i++) {
                int port = basePort + i;
                // Absolute: the command printed to bring a killed node back must work from any directory.
                Path dir = DataDirectory.absolute(data.resolve("node-" + port));
                Files.createDirectories(dir);
                List<String> cmd = new ArrayList<>();
                cmd.add(ProcessHandle.current().info().command().orElse("java"));
                cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
                cmd.add("-D" + dht.node.JvmSettings.EXIT_WITH_PARENT + "=true");
                List<String> serveArgs = new ArrayList<>(List.of("serve", "--port", String.valueOf(port), "--data", dir.toString(),
                        "--cluster", clusterArg, "--self", urls.get(i), "--io-threads", String.valueOf(ioThreadsPerNode(nodes)),
                        "--cluster-secret-file", secret.toString()));
                if (replicationFactor != null) serveArgs.addAll(List.of("--replication-factor", String.valueOf(replicationFactor)));
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
                cmd.addAll(serveArgs);
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                Thread output = Thread.ofPlatform().daemon().name("out-" + port).start(() -> prefix(p, "[" + port + "] "));
                synchronized (started) {
                    started.add(new LocalNode(urls.get(i), serveArgs, p, output));
                }
            }
            List<LocalNode> all;
            synchronized (started) {
                all = List.copyOf(started);
            }
            if (!awaitReady(all)) {
                System.err.println("dht cluster: not every node became ready; stopping them");
                exitCode.set(1);
                return 1;
            }
            System.out.println("dht cluster: " + Plural.of(nodes, "node") + " ready:");
            for (String u : urls) System.out.println("  " + u);
            System.out.println("Try:  curl -X PUT '" + urls.get(0) + "/v0/entity?id=hello' -d world");
            System.out.println("      curl '" + urls.get(urls.size() - 1) + "/v0/entity?id=hello'");
            System.out.println("Ctrl-C stops the cluster.");
            // A node that dies is reported and the others go on serving (killing one is how to
            // try failover); once none is left there is nothing to run, and the launcher says so.
            AtomicInteger alive = new AtomicInteger(all.size());
            for (LocalNode n : all) {
                Process p = n.process();
                p.onExit().thenRun(() -> {
                    if (stopping.get()) return;
                    // Killing a node is how to try failover, and bringing it back is the second half:
                    // the command, with its own data directory, is the one thing the user cannot see.
                    System.err.println("dht cluster: node " + n.name() + " exited with " + p.exitValue()
                            + "; the others go on. To bring it back (by hand, so Ctrl-C here will not stop it):");
                    System.err.println("  " + shellWord(launcher()) + " " + String.join(" ", n.serveArgs().stream().map(ClusterCommand::shellWord).toList()));
                    if (alive.decrementAndGet() == 0) {
                        System.err.println("dht cluster: every node has exited; stopping");
                        exitCode.set(1);
                        stopped.countDown();
                    }
                });
            }
            stopped.await();
            return exitCode.get();
        } catch (Exception | Error e) {
            exitCode.set(1); // System.exit runs the hook, whose halt would otherwise say 0
            throw e;
        }
    }

    /**
     * Waits until every node answers its status as the process this launcher started (its pid in
     * the answer): another process already on one of the ports would answer too, while our node
     * there fails to listen.
     */
    private static boolean awaitReady(List<LocalNode> nodes) throws InterruptedException {
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build()) {
            return awaitReady(client, nodes);
        }
    }

    private static boolean awaitReady(HttpClient client, List<LocalNode> nodes) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (LocalNode node : nodes) {
            String url = node.url();
            String ours = "\"pid\":" + node.process().pid() + ",";
            while (true) {
                if (nodes.stream().anyMatch(n -> !n.process().isAlive())) return false;
                try {
                    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url + "/v0/status"))
                            .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200 && r.body().contains(ours)) break;
                } catch (IOException e) {
                    // not listening yet
                }
                if (System.nanoTime() > deadline) return false;
                Thread.sleep(100);
            }
        }
        return true;
    }

    /**
     * How to run this program again from any directory: bin/dht exports its own absolute path as
     * DHT_LAUNCHER; run otherwise (java -jar, tests), the repository-relative {@code bin/dht}.
     */
    private static String launcher() {
        String l = System.getenv("DHT_LAUNCHER");
        return l == null || l.isBlank() ? "bin/dht" : l;
    }

    /** {@code arg} as one shell word, to be pasted: quoted unless it is plain (a --data path may hold spaces). */
    static String shellWord(String arg) {
        if (!arg.isEmpty() && arg.matches("[A-Za-z0-9_./:,=@%+-]+")) return arg;
        return "'" + arg.replace("'", "'\\''") + "'";
    }

    private static void prefix(Process p, String prefix) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) System.out.println(prefix + line);
        } catch (IOException e) {
            // the node's output closed: it exited
        }
    }

    /**
     * Stops every node gracefully and waits for it, its last log lines and its exit code shown.
     * SIGTERM goes through the process handle: {@link Process#destroy} would also close the pipes
     * to the node, which ends the threads that print its output (losing its stop lines) and
     * gives it end of input on stdin, which a node started with {@code dht.exitWithParent} reads
     * as the launcher being gone.
     */
    private static void stopAll(List<LocalNode> started) {
        List<LocalNode> nodes;
        synchronized (started) {
            nodes = List.copyOf(started);
        }
        // Only the nodes running now: one that died earlier was reported then.
        List<LocalNode> running = nodes.stream().filter(n -> n.process().isAlive()).toList();
        running.forEach(n -> n.process().toHandle().destroy());
        for (LocalNode n : running) {
            Process p = n.process();
            try {
                if (!p.waitFor(15, TimeUnit.SECONDS)) {
                    System.err.println("dht cluster: node " + n.name() + " did not stop within 15 s; killing it");
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }
        for (LocalNode n : nodes) {
            try {
                n.output().join(2_000); // the rest of the node's output, up to its end
            } catch (InterruptedException e) {
                break;
            }
        }
        for (LocalNode n : running) {
            Process p = n.process();
            if (!p.isAlive()) System.err.println("dht cluster: node " + n.name() + " stopped, exit code " + p.exitValue());
        }
    }
}
