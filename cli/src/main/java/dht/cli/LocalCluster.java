package dht.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node processes {@code bin/dht cluster} runs: it starts them (as children that stop when it
 * is gone), reports one that dies with the command that brings it back, and stops them all,
 * those {@code bin/dht cluster add} started included. Once no supervised node is left, {@link #await}
 * returns.
 */
final class LocalCluster {
    private final List<LocalNode> nodes = new ArrayList<>(); // guarded by itself
    private boolean stopping; // guarded by nodes
    private final AddedNodes added;
    private final AtomicInteger alive = new AtomicInteger();
    private final CountDownLatch ended = new CountDownLatch(1);

    LocalCluster(AddedNodes added) {
        this.added = added;
    }

    /**
     * Starts {@code serve serveArgs} as a child process; refused once the stop has begun, so that
     * no node starts after {@link #stopAll} took the list of those to stop.
     */
    LocalNode start(String url, int port, Path dir, List<String> serveArgs, List<String> restartArgs, boolean isAdded)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-D" + dht.node.JvmSettings.EXIT_WITH_PARENT + "=true");
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(serveArgs);
        synchronized (nodes) {
            if (stopping) throw new IOException("the cluster is stopping");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            LocalNode n = new LocalNode(url, port, dir, restartArgs, isAdded, p);
            nodes.add(n);
            return n;
        }
    }

    /** Every node started, in start order. */
    List<LocalNode> nodes() {
        synchronized (nodes) {
            return List.copyOf(nodes);
        }
    }

    /** The nodes whose process runs. */
    List<LocalNode> running() {
        return nodes().stream().filter(n -> n.process.isAlive()).toList();
    }

    boolean stopping() {
        synchronized (nodes) {
            return stopping;
        }
    }

    /**
     * From now on, a death of {@code n} is reported (killing one is how to try failover), with the
     * command that brings it back; an added node that exits {@code 0} on its own has left the
     * cluster ({@code bin/dht leave}) and is no longer recorded. When no supervised node is left,
     * there is nothing to run: {@link #await} returns.
     */
    void supervise(LocalNode n) {
        alive.incrementAndGet();
        Process p = n.process;
        p.onExit().thenRun(() -> {
            if (stopping()) return;
            if (n.added && p.exitValue() == 0) {
                // The record goes first: the line below says it is gone, and a reader may act on it.
                try {
                    added.remove(n.port);
                    System.err.println("dht cluster: node " + n.name() + " left the cluster; the next start will not bring it back");
                } catch (IOException e) {
                    System.err.println("dht cluster: node " + n.name() + " left the cluster, but " + added.file()
                            + " still lists it (" + e.getMessage() + "); remove port " + n.port + " from it by hand");
                }
            } else {
                // Bringing a killed node back is the second half of trying failover: the command,
                // with its own data directory, is the one thing the user cannot see.
                System.err.println("dht cluster: node " + n.name() + " exited with " + p.exitValue()
                        + "; the others go on. To bring it back (by hand, so Ctrl-C here will not stop it):");
                System.err.println("  " + ClusterCommand.shellWord(launcher()) + " "
                        + String.join(" ", n.restartArgs.stream().map(ClusterCommand::shellWord).toList()));
            }
            if (alive.decrementAndGet() == 0) {
                System.err.println("dht cluster: every node has exited; stopping");
                ended.countDown();
            }
        });
    }

    /** Returns once every supervised node has exited (or {@link #end} was called). */
    void await() throws InterruptedException {
        ended.await();
    }

    void end() {
        ended.countDown();
    }

    /**
     * How to run this program again from any directory: bin/dht exports its own absolute path as
     * DHT_LAUNCHER; run otherwise (java -jar, tests), the repository-relative {@code bin/dht}.
     */
    static String launcher() {
        String l = System.getenv("DHT_LAUNCHER");
        return l == null || l.isBlank() ? "bin/dht" : l;
    }

    /**
     * Stops every node gracefully and waits for it, its last log lines and its exit code shown.
     * SIGTERM goes through the process handle: {@link Process#destroy} would also close the pipes
     * to the node, which ends the threads that print its output (losing its stop lines) and
     * gives it end of input on stdin, which a node started with {@code dht.exitWithParent} reads
     * as the launcher being gone.
     */
    void stopAll() {
        List<LocalNode> all;
        synchronized (nodes) {
            stopping = true;
            all = List.copyOf(nodes);
        }
        // Only the nodes running now: one that died earlier was reported then.
        List<LocalNode> running = all.stream().filter(n -> n.process.isAlive()).toList();
        running.forEach(n -> n.process.toHandle().destroy());
        for (LocalNode n : running) {
            Process p = n.process;
            try {
                if (!p.waitFor(15, TimeUnit.SECONDS)) {
                    System.err.println("dht cluster: node " + n.name() + " did not stop within 15 s; killing it");
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }
        for (LocalNode n : all) {
            try {
                n.awaitOutput(2_000); // the rest of the node's output, up to its end
            } catch (InterruptedException e) {
                break;
            }
        }
        for (LocalNode n : running) {
            Process p = n.process;
            if (!p.isAlive()) System.err.println("dht cluster: node " + n.name() + " stopped, exit code " + p.exitValue());
        }
    }
}
