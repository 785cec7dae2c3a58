package dht.cli;

import dht.node.cluster.Membership;
import dht.node.cluster.MembershipFile;
import dht.node.text.Plural;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bin/dht cluster --nodes N}: a local cluster of N real node processes, for trying things
 * out. Each node's output is prefixed with its port. Ctrl-C (or SIGTERM) stops them all gracefully.
 * While it runs, {@code bin/dht cluster add} adds a node ({@link NodeAddition}, through
 * {@link ClusterControl}); the nodes added are recorded ({@link AddedNodes}) and started again with
 * the others at the next start on the same {@code --data}.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Start a local cluster of N node processes; Ctrl-C stops them all.",
                "While it runs, 'dht cluster add --data DIR' adds a node to it; a restart on the same --data brings the added nodes back."},
        subcommands = ClusterAddCommand.class)
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

    @Option(names = "--add-wait", defaultValue = "120", paramLabel = "SECONDS",
            description = "How long 'cluster add' waits, once the new node is a member, for every running node to list it "
                + "and for the old owners' cleanup (default: ${DEFAULT-VALUE}).")
    long addWaitSeconds;

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

    /** The {@code serve} arguments every node of the launcher gets; the first nodes add {@code --cluster}, an added one {@code --join}. */
    static List<String> serveArgs(int port, Path dir, String self, int ioThreads, Path secret) {
        return new ArrayList<>(List.of("serve", "--port", String.valueOf(port), "--data", dir.toString(), "--self", self,
                "--io-threads", String.valueOf(ioThreads), "--cluster-secret-file", secret.toString()));
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
        checkHost();
        if (addWaitSeconds < 1) throw new ParameterException(spec.commandLine(), "--add-wait must be at least 1 second, got " + addWaitSeconds);
        if (replicationFactor != null && (replicationFactor < 1 || replicationFactor > nodes)) {
            throw new ParameterException(spec.commandLine(), "--replication-factor must be 1.." + nodes + " (--nodes), got "
                    + replicationFactor);
        }
        Path socket = ClusterControl.socketOf(data);
        if (ClusterControl.answers(socket)) {
            System.err.println("dht cluster: another bin/dht cluster runs on " + DataDirectory.absolute(data)
                    + " (it answers on " + socket + "); 'dht cluster add --data " + data + "' adds a node to it");
            return 1;
        }
        AddedNodes added = new AddedNodes(data);
        // A static cluster (version 1) takes its nodes from the flags, as it always has; a cluster
        // that changed goes by the newest membership any of its nodes keeps.
        Membership kept = newestKept(added);
        Membership newest = kept != null && kept.version() > 1 ? kept : null;
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < nodes; i++) urls.add(url(basePort + i));
        if (newest != null && urls.stream().noneMatch(newest.all()::contains)
                && added.ports().stream().noneMatch(p -> newest.all().contains(url(p)))) {
            // another --host (or ports) than the cluster's: nothing this would start is a member
            throw new ParameterException(spec.commandLine(), "the membership kept in " + data + " (version "
                    + newest.version() + ": " + newest.members() + ") lists none of the nodes this would start: start "
                    + "with the --host and --base-port the cluster was created with");
        }
        for (int port = basePort + nodes; newest != null && port < basePort + nodes + 64; port++) {
            // a first node past --nodes that is still a member would be left down (a smaller --nodes)
            if (newest.all().contains(url(port)) && !added.ports().contains(port)
                    && Files.exists(data.resolve("node-" + port))) {
                throw new ParameterException(spec.commandLine(), "node-" + port + " is a member of the cluster kept in "
                        + data + " (membership version " + newest.version() + ") that --nodes " + nodes + " would not "
                        + "start: start with the --nodes, --host and --base-port the cluster was created with");
            }
        }
        for (int i = 0; newest != null && i < nodes; i++) {
            // every first node of a cluster that changed has its directory: one without is not its
            if (!newest.all().contains(urls.get(i)) && !Files.exists(data.resolve("node-" + (basePort + i)))) {
                throw new ParameterException(spec.commandLine(), urls.get(i) + " is not of the cluster kept in " + data
                        + " (membership version " + newest.version() + ": " + newest.members() + "): start with the "
                        + "--nodes, --host and --base-port it was created with");
            }
        }
        List<Integer> addedPorts = restartable(added, newest);
        LocalCluster cluster = new LocalCluster(added);
        AtomicInteger exitCode = new AtomicInteger();
        ClusterControl[] control = new ClusterControl[1]; // set once the nodes are ready; the stop hook closes it
        // The hook ends the process with halt (the main thread may still be waiting), so it carries
        // the exit code: 0 for a stop on a signal, 1 once the start has failed.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (control) {
                if (control[0] != null) control[0].close();
            }
            cluster.stopAll();
            cluster.end();
            Runtime.getRuntime().halt(exitCode.get());
        }, "dht-cluster-stop"));
        try {
            // One secret for the cluster, beside the nodes' directories: internal paths answer only its holders.
            Files.createDirectories(data);
            Path secret = DataDirectory.absolute(ClusterSecretFile.createIfAbsent(data));
            int total = nodes + addedPorts.size();
            for (int i = 0; i < nodes; i++) {
                int port = basePort + i;
                if (newest != null && !newest.all().contains(urls.get(i))) {
                    // removed while it was down: started, it would learn so and serve outside the cluster
                    System.err.println("dht cluster: node-" + port + " is no longer a member (it left or was removed; "
                            + "membership version " + newest.version() + ": " + newest.members() + "); not started, its "
                            + "directory stays");
                    continue;
                }
                // Absolute: the command printed to bring a killed node back must work from any directory.
                Path dir = DataDirectory.absolute(data.resolve("node-" + port));
                Files.createDirectories(dir);
                List<String> serveArgs = serveArgs(port, dir, urls.get(i), ioThreadsPerNode(total), secret);
                serveArgs.addAll(5, List.of("--cluster", String.join(",", urls))); // after --data DIR, where it always was
                if (replicationFactor != null) serveArgs.addAll(List.of("--replication-factor", String.valueOf(replicationFactor)));
                cluster.start(urls.get(i), port, dir, serveArgs, serveArgs, false);
            }
            for (int port : addedPorts) {
                // Its kept membership makes it a member again (or lets it end its join): no --join.
                String url = url(port);
                Path dir = DataDirectory.absolute(data.resolve("node-" + port));
                List<String> serveArgs = serveArgs(port, dir, url, ioThreadsPerNode(total), secret);
                cluster.start(url, port, dir, serveArgs, serveArgs, true);
            }
            List<LocalNode> all = cluster.nodes();
            if (!awaitReady(all)) {
                System.err.println("dht cluster: not every node became ready; stopping them");
                exitCode.set(1);
                return 1;
            }
            // A node that dies is reported and the others go on serving (killing one is how to
            // try failover); once none is left there is nothing to run, and the launcher says so.
            all.forEach(cluster::supervise);
            // Listening before the ready lines, which are written in one piece: a reader may act on
            // them at once ('dht cluster add' right after "ready", the node list read with it).
            String addHint = null;
            synchronized (control) {
                if (!cluster.stopping()) {
                    try {
                        control[0] = ClusterControl.open(socket, new NodeAddition(data, host, secret, cluster, added, java.time.Duration.ofSeconds(addWaitSeconds)));
                        addHint = "Add a node:  " + shellWord(LocalCluster.launcher()) + " cluster add --data "
                                + shellWord(DataDirectory.absolute(data).toString());
                    } catch (IOException | RuntimeException e) {
                        System.err.println("dht cluster: cannot listen on " + socket + " (" + e.getMessage()
                                + "): 'dht cluster add' will not reach this cluster");
                    }
                }
            }
            StringBuilder ready = new StringBuilder("dht cluster: " + Plural.of(all.size(), "node") + " ready:\n");
            for (LocalNode n : all) ready.append("  ").append(n.url).append(n.added ? " (added)" : "").append('\n');
            ready.append("Try:  curl -X PUT '").append(all.getFirst().url).append("/v0/entity?id=hello' -d world\n");
            ready.append("      curl '").append(all.getLast().url).append("/v0/entity?id=hello'\n");
            if (addHint != null) ready.append(addHint).append('\n');
            System.out.print(ready);
            System.out.flush();
            System.out.println("Ctrl-C stops the cluster.");
            cluster.await();
            if (cluster.stopping()) return exitCode.get(); // the stop hook ended the wait: it halts with that code
            exitCode.set(1); // every node has exited
            return 1;
        } catch (Exception | Error e) {
            exitCode.set(1); // System.exit runs the hook, whose halt would otherwise say 0
            throw e;
        }
    }

    /**
     * The added nodes to start with the others: every recorded one whose data directory keeps a
     * membership that the newest one kept by any node ({@code newest}; null: its own) lists. One
     * without a membership never joined (the launcher was killed before its join was let in):
     * dropped, with its directory, which holds nothing of the cluster's. One no longer listed left
     * or was removed: dropped, its directory kept.
     */
    private List<Integer> restartable(AddedNodes added, Membership newest) throws IOException {
        List<Integer> out = new ArrayList<>();
        for (int port : added.ports()) {
            if (port >= basePort && port < basePort + nodes) {
                throw new ParameterException(spec.commandLine(), "port " + port + " is that of a node 'dht cluster add' added ("
                        + added.file() + "), and --nodes " + nodes + " --base-port " + basePort + " gives it to one of the first nodes: "
                        + "start with the --nodes and --base-port the cluster was created with (the added nodes come back by themselves)");
            }
            Path dir = data.resolve("node-" + port);
            Membership kept = new MembershipFile(dir).read();
            if (kept == null) {
                System.err.println("dht cluster: node-" + port + " in " + added.file() + " never joined the cluster; dropping it");
                added.remove(port);
                NodeAddition.deleteTree(dir);
                continue;
            }
            Membership by = newest != null ? newest : kept;
            if (!by.all().contains(url(port))) {
                // It left, or was removed (while it was down, too: its own membership still lists it,
                // and started it would learn so and serve outside the cluster).
                System.err.println("dht cluster: node-" + port + " is no longer a member (membership version " + by.version()
                        + ": " + by.members() + "); dropping it from " + added.file() + ", its directory stays");
                added.remove(port);
            } else {
                out.add(port);
            }
        }
        return out;
    }

    /**
     * {@code --host} makes the node URLs: one that cannot be a URL's host (a space, {@code <},
     * {@code _}) or that does not resolve is bad usage here, before any node starts, rather than a
     * stack trace or a minute of nodes that never become ready.
     */
    private void checkHost() {
        try {
            ServeCommand.normalize(url(basePort));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--host must be a host name or address, got '" + host + "'");
        }
        try {
            java.net.InetAddress.getByName(host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host);
        } catch (java.net.UnknownHostException e) {
            throw new ParameterException(spec.commandLine(), "--host " + host + " does not resolve to an address (unknown host)");
        }
    }

    /** The URL of this launcher's node on {@code port}. */
    private String url(int port) {
        return "http://" + host + ":" + port;
    }

    /**
     * The newest membership (by version) any node's directory keeps, the first nodes' and the added
     * ones': a node removed while it was down still keeps one that lists it. Null when none keeps one.
     */
    private Membership newestKept(AddedNodes added) throws IOException {
        List<Integer> ports = new ArrayList<>(added.ports());
        for (int i = 0; i < nodes; i++) ports.add(basePort + i);
        Membership newest = null;
        for (int port : ports) {
            Path dir = data.resolve("node-" + port);
            Membership m;
            try {
                m = Files.isDirectory(dir) ? new MembershipFile(dir).read() : null;
            } catch (IOException e) {
                // that node's own start reports it; the others' files decide
                System.err.println("dht cluster: cannot read the membership kept in " + dir + " (" + e.getMessage() + ")");
                continue;
            }
            if (m != null && (newest == null || m.version() > newest.version())) newest = m;
        }
        return newest;
    }

    /**
     * Waits until every node answers its status as the process this launcher started (its pid in
     * the answer): another process already on one of the ports would answer too, while our node
     * there fails to listen.
     */
    private static boolean awaitReady(List<LocalNode> nodes) throws InterruptedException {
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (LocalNode node : nodes) {
                while (!StatusProbe.isOf(StatusProbe.body(client, node.url), node.process.pid())) {
                    if (nodes.stream().anyMatch(n -> !n.process.isAlive())) return false;
                    if (System.nanoTime() > deadline) return false;
                    Thread.sleep(100);
                }
            }
            return true;
        }
    }

    /** {@code arg} as one shell word, to be pasted: quoted unless it is plain (a --data path may hold spaces). */
    static String shellWord(String arg) {
        if (!arg.isEmpty() && arg.matches("[A-Za-z0-9_./:,=@%+-]+")) return arg;
        return "'" + arg.replace("'", "'\\''") + "'";
    }
}
