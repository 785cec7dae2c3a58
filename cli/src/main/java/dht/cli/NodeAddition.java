package dht.cli;

import dht.node.cluster.MembershipFile;
import dht.node.text.Plural;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the running {@code bin/dht cluster} does for {@code bin/dht cluster add}: one more node
 * process, on the first free port above the cluster's with no {@code node-PORT} directory yet, its
 * data in {@code DATA/node-PORT}, joining through a running node ({@code serve --join}). Done once
 * the node is a member in its own status and in every running node's; from then on it is
 * supervised and stopped like the others, and recorded in {@link AddedNodes} so that the next
 * start brings it back. A node whose join was refused never joined: its record and directory go.
 */
final class NodeAddition implements ClusterControl.Handler {
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);
    private final Path data;
    private final String host;
    private final Path secret;
    private final LocalCluster cluster;
    private final AddedNodes added;
    /**
     * How long an add waits, once the node is a member by its own status, for every running node to
     * list it and for the old owners' cleanup (a large store takes a while): {@code cluster --add-wait}.
     */
    private final Duration addWait;

    NodeAddition(Path data, String host, Path secret, LocalCluster cluster, AddedNodes added, Duration addWait) {
        this.data = data;
        this.host = host;
        this.secret = secret;
        this.cluster = cluster;
        this.added = added;
        this.addWait = addWait;
    }

    @Override
    public String handle(String request, PrintWriter progress) {
        if (!request.equals("add")) return "error unknown request '" + request + "' (this launcher takes: add)";
        try {
            return add(progress);
        } catch (IOException e) {
            return "error " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "error interrupted";
        }
    }

    private String add(PrintWriter progress) throws IOException, InterruptedException {
        if (cluster.stopping()) return "error the cluster is stopping";
        List<LocalNode> running = cluster.running();
        if (running.isEmpty()) return "error no node of the cluster runs";
        int port = nextPort();
        if (port < 0) return "error no free port above the cluster's";
        String url = "http://" + host + ":" + port;
        Path dir = DataDirectory.absolute(data.resolve("node-" + port));
        String via = running.getFirst().url;
        List<String> restart = ClusterCommand.serveArgs(port, dir, url, ClusterCommand.ioThreadsPerNode(running.size() + 1), secret);
        List<String> args = new ArrayList<>(restart);
        args.addAll(List.of("--join", via));
        Files.createDirectories(dir);
        added.add(port); // before it starts: a launcher killed during the join still brings it back
        System.out.println("dht cluster: adding node " + url + ", joining through " + via);
        progress.println("starting node " + url + " (data " + dir + "), joining through " + via);
        LocalNode n;
        try {
            n = cluster.start(url, port, dir, args, restart, true);
        } catch (IOException e) {
            forget(port, dir);
            throw e;
        }
        return awaitMember(n, progress);
    }

    /**
     * Waits until every running node lists {@code n} among its members and none is rebalancing any
     * more (the old owners' cleanup done), or {@code n} exits. Once {@code n} is a member by its own
     * status the wait is bounded ({@link #addWait}): a node that does not answer (frozen) or
     * lags learns the membership when it runs again, and the add says which ones it left behind.
     */
    private String awaitMember(LocalNode n, PrintWriter progress) throws IOException, InterruptedException {
        long nextProgress = System.nanoTime() + PROGRESS_EVERY.toNanos();
        long deadline = Long.MAX_VALUE; // set once it is a member
        boolean joined = false; // it said it is a member: its join is over, whatever happens to it next
        String own = null; // the new node's last status
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build()) {
            while (n.process.isAlive()) {
                String answer = StatusProbe.body(client, n.url);
                if (answer != null) own = answer; // the last it said: a node that froze after it joined still counts its members
                joined |= StatusProbe.isOf(own, n.process.pid()) && StatusProbe.urls(own, "members").contains(n.url);
                if (joined && deadline == Long.MAX_VALUE) deadline = System.nanoTime() + addWait.toNanos();
                List<String> unconfirmed = joined ? notListing(client, n) : List.of();
                int cleaning = joined && unconfirmed.isEmpty() ? stillRebalancing(client) : 0;
                boolean late = System.nanoTime() > deadline;
                if (joined && ((unconfirmed.isEmpty() && cleaning == 0) || late)) {
                    cluster.supervise(n);
                    int size = StatusProbe.urls(own, "members").size();
                    String behind = unconfirmed.isEmpty() ? ""
                            : Plural.of(unconfirmed.size(), "node") + " did not list it among their members within "
                            + addWait.toSeconds() + " s (" + String.join(", ", unconfirmed)
                            + "): one that does not answer learns the membership when it runs again";
                    String cleanup = cleaning == 0 ? "" : Plural.of(cleaning, "node") + " still rebalancing after " + addWait.toSeconds() + " s";
                    String note = behind.isEmpty() ? cleanup : behind;
                    System.out.println("dht cluster: node " + n.name() + " added: " + size + " members"
                            + (note.isEmpty() ? "" : "; " + note + " (see their logs)"));
                    if (!behind.isEmpty()) progress.println("dht cluster add: " + behind);
                    if (cleaning > 0) progress.println("dht cluster add: " + cleanup + ": some keys may have a copy more for now");
                    return "ok " + n.url;
                }
                if (System.nanoTime() > nextProgress) {
                    nextProgress = System.nanoTime() + PROGRESS_EVERY.toNanos();
                    progress.println(!joined ? joining(own)
                            : !unconfirmed.isEmpty() ? "joined: waiting for " + Plural.of(unconfirmed.size(), "node")
                                    + " to list it among their members (" + String.join(", ", unconfirmed) + ")"
                            : "cleaning up: " + Plural.of(cleaning, "node") + " still to remove the copies the new node took over");
                    if (progress.checkError()) {
                        // the asker went away (Ctrl-C): the node joins on all the same, watched as the others
                        cluster.supervise(n);
                        return "";
                    }
                }
                Thread.sleep(200);
            }
        }
        n.process.waitFor(5, TimeUnit.SECONDS);
        n.awaitOutput(2_000);
        String why = reason(n);
        if (joined || keptAsMember(n)) {
            cluster.supervise(n);
            return "error node " + n.name() + " exited with " + n.process.exitValue() + " after it joined (" + why
                    + "); it is a member, recorded in " + added.file() + ", and starts again at the next start of bin/dht cluster";
        }
        if (Files.exists(n.dir.resolve(MembershipFile.NAME)) || Files.exists(n.dir.resolve(MembershipFile.JOIN_ASKED))) {
            // It was let in (it is joining), or may have been (its join call got no answer): it
            // stays recorded, and comes back to end its join (MembershipFile.JOIN_ASKED).
            cluster.supervise(n);
            return "error node " + n.name() + " exited with " + n.process.exitValue() + " while joining (" + why
                    + "); it is recorded in " + added.file() + " and goes on joining at the next start of bin/dht cluster";
        }
        forget(n.port, n.dir);
        return "error node " + n.url + " was not added: " + why;
    }

    /** Whether {@code n}'s data directory holds a membership that lists it as a member (its join over). */
    private static boolean keptAsMember(LocalNode n) {
        try {
            var kept = new MembershipFile(n.dir).read();
            return kept != null && kept.members().contains(n.url);
        } catch (IOException e) {
            return false;
        }
    }

    /** The running nodes other than {@code added} that do not answer, or answer without listing it among their members. */
    private List<String> notListing(HttpClient client, LocalNode added) throws InterruptedException {
        List<String> behind = new ArrayList<>();
        for (LocalNode other : cluster.running()) {
            if (other == added) continue;
            String body = StatusProbe.body(client, other.url);
            if (body == null || !StatusProbe.urls(body, "members").contains(added.url)) behind.add(other.url);
        }
        return behind;
    }

    /**
     * How many running nodes still report {@code rebalancing}: after a join, each old owner removes
     * the copies it no longer owns a few seconds after the join ends; until then those keys have a
     * copy more than their writes asked for. A node that does not answer counts as done.
     */
    private int stillRebalancing(HttpClient client) throws InterruptedException {
        int n = 0;
        for (LocalNode node : cluster.running()) {
            String body = StatusProbe.body(client, node.url);
            if (body != null && body.contains("\"rebalancing\":true")) n++;
        }
        return n;
    }

    /** A progress line from the joining node's status (null: it does not answer yet). */
    private static String joining(String status) {
        if (status == null) return "starting...";
        // Versions, not bytes: the members' sizes are as stored (compressed), the bytes streamed are not.
        long scanned = StatusProbe.number(status, "entriesScanned");
        long total = StatusProbe.number(status, "totalEntries");
        long eta = StatusProbe.number(status, "etaMillis");
        return "joining: " + Math.max(0, scanned) + (total >= 0 ? " of about " + total : "") + " versions streamed"
                + (eta > 0 ? ", about " + Math.ceilDiv(eta, 1000) + " s to go" : "");
    }

    /** Why a node exited: its own {@code dht serve:} line, else its last line. */
    private static String reason(LocalNode n) {
        List<String> tail = n.tail();
        for (int i = tail.size() - 1; i >= 0; i--) {
            if (tail.get(i).startsWith("dht serve: ")) return tail.get(i).substring("dht serve: ".length());
        }
        return tail.isEmpty() ? "exit code " + n.process.exitValue() : tail.getLast();
    }

    /** Drops a node that never joined: its record and its directory, which holds nothing of the cluster's. */
    private void forget(int port, Path dir) throws IOException {
        added.remove(port);
        deleteTree(dir);
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    /** The first port above every node's with no data directory of its own yet and nothing listening; -1 if none. */
    private int nextPort() {
        int above = cluster.nodes().stream().mapToInt(n -> n.port).max().orElseThrow();
        for (int p = above + 1; p <= 65535; p++) {
            if (Files.exists(data.resolve("node-" + p))) continue;
            try (ServerSocket probe = new ServerSocket(p)) {
                return p;
            } catch (IOException taken) {
                // something listens there: the next one
            }
        }
        return -1;
    }
}
