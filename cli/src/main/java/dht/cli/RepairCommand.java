package dht.cli;

import dht.node.text.Plural;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bin/dht repair [START [END]]}: the operator's anti-entropy repair. Enumerates every key of
 * the range that any node holds (each node's internal range stream, merged: {@link KeyMerge}) and
 * has the {@code --url} node repair each one ({@code GET /v0/entity?id=K&from=F&repair=all}), so
 * that afterwards every key has its newest version on each of its first {@code F} replicas and a
 * deleted key's tombstone on each of them that held an older version.
 *
 * <p>Why this closes what read repair and hints leave open: read repair only reaches keys that are
 * read, never sends a value past the last replica holding it, and hints are dropped past their
 * window or bounds. Here the operator states the number of copies ({@code --from}), and every key is
 * visited. A node that cannot be streamed makes the run incomplete (exit 1): the keys only it holds
 * are not visited, though every other key still is.
 *
 * <p>Bounded memory: one key per node stream and {@code --concurrency} keys in flight.
 */
@Command(name = "repair", mixinStandardHelpOptions = true,
        description = {"Anti-entropy repair: bring every key to its newest version on each of its replicas.",
                "Every key of the range that any node holds gets its newest version on each of its first --from replicas "
                        + "(a deleted key: its tombstone on each replica still holding an older version).",
                "Progress on stderr every second, then a summary. Exit 0 when every key was repaired and every node "
                        + "streamed, 1 otherwise."})
final class RepairCommand implements Callable<Integer> {
    @Mixin
    ClientOptions client;

    @Spec
    CommandSpec spec;

    Integer from;

    @Option(names = "--from", paramLabel = "F",
            description = "Copies every key should have: its first F replicas (default: the cluster's replication factor). "
                    + "A key written with a smaller from is brought up to F copies.")
    void from(int f) {
        if (f < 1) throw new ParameterException(spec.commandLine(), "--from must be at least 1");
        from = f;
    }

    @Option(names = "--cluster-secret-file", paramLabel = "PATH",
            description = "The cluster's secret (as given to bin/dht serve), for the nodes' internal range streams.")
    Path clusterSecretFile;

    int concurrency;

    @Option(names = "--concurrency", paramLabel = "C", defaultValue = "16",
            description = "Keys repaired at once (default: ${DEFAULT-VALUE}).")
    void concurrency(int c) {
        if (c < 1 || c > MAX_CONCURRENCY) {
            throw new ParameterException(spec.commandLine(), "--concurrency must be 1.." + MAX_CONCURRENCY + ", got " + c);
        }
        concurrency = c;
    }

    @Parameters(index = "0", arity = "0..1", paramLabel = "START", description = "First key of the range (included; default: the first key).")
    String start;

    @Parameters(index = "1", arity = "0..1", paramLabel = "END", description = "End of the range, excluded (default: no end).")
    String end;

    /** What a node admits at once by default (--max-in-flight): more keys at once would only earn 503s. */
    static final int MAX_CONCURRENCY = dht.node.NodeConfig.DEFAULT_MAX_IN_FLIGHT;

    /** The answer header in which a node says what its {@code repair=all} read repaired: part of the HTTP API the cli speaks. */
    static final String REPAIR_HEADER = "X-Dht-Repair";

    /** Keys not fully repaired that are named on stderr; the rest are counted. */
    private static final int FAILURES_LISTED = 10;
    private static final int ATTEMPTS_WHEN_OVERLOADED = 5;

    private final PrintStream err = System.err;
    private final AtomicInteger failuresListed = new AtomicInteger();
    private HttpClient http;
    private RepairTally tally;
    /** Null without --cluster-secret-file. */
    private dht.node.rpc.ClusterSecret secret;
    /** A node refused a key stream for the cluster secret: the remedy is the secret, not waiting. */
    private volatile boolean secretRefused;

    @Override
    public Integer call() throws Exception {
        byte[] first = start == null ? new byte[0] : ClientOptions.utf8(spec, "START", start);
        if (end != null) ClientOptions.utf8(spec, "END", end); // bad usage before any call, as for START
        if (clusterSecretFile != null) {
            try {
                secret = ClusterSecretFile.read(clusterSecretFile);
            } catch (ClusterSecretFile.Refused e) {
                err.println("dht repair: " + e.getMessage());
                return 2;
            }
        }
        String base = client.base();
        HttpResponse<String> status = client.send(HttpRequest.newBuilder(URI.create(base + "/v0/status")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (status.statusCode() != 200) {
            err.println("dht repair: " + base + "/v0/status answered " + status.statusCode());
            return 1;
        }
        List<String> nodes = cluster(status.body());
        if (nodes.isEmpty()) {
            err.println("dht repair: no cluster in the status of " + base);
            return 1;
        }
        long replicationFactor = number(status.body(), "replicationFactor"); // -1 from a node too old to say
        int f = from != null ? from : replicationFactor > 0 ? (int) Math.min(replicationFactor, nodes.size()) : nodes.size();
        if (f > nodes.size()) {
            // known only once the cluster is: still bad usage, said by Main.badUsage like the rest
            throw new ParameterException(spec.commandLine(), "--from " + f + " is larger than the cluster ("
                    + Plural.of(nodes.size(), "node") + ")");
        }
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build()) {
            http = client;
            return run(base, nodes, f, first);
        }
    }

    private int run(String base, List<String> nodes, int f, byte[] first) throws InterruptedException {
        boolean wholeKeySpace = (start == null || start.isEmpty()) && end == null;
        tally = new RepairTally(wholeKeySpace ? storedBytes(nodes) : 0);
        err.printf("dht repair: %s, from=%d, %s, %d keys at once, coordinated by %s%n",
                Plural.of(nodes.size(), "node"), f, wholeKeySpace ? "every key"
                        : "keys from '" + (start == null ? "" : start) + "'" + (end == null ? " on" : " to '" + end + "' (not included)"),
                concurrency, base);

        List<ResumingKeyStream> streams = new ArrayList<>();
        for (String node : nodes) {
            try {
                streams.add(ResumingKeyStream.open(node, first,
                        from -> NodeKeyStream.open(node, from, end, client.timeoutSeconds, tally.streamed, secret)));
            } catch (IOException e) {
                streamFailed(node, e, "cannot stream its keys (" + e.getMessage() + ")");
            }
        }
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "repair-progress");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleAtFixedRate(() -> tally.print(err, tally.progress()), 1, 1, TimeUnit.SECONDS);
        Semaphore inFlight = new Semaphore(concurrency);
        try (KeyMerge keys = new KeyMerge(streams, (s, e) -> streamFailed(s.name(), e,
                "its key stream failed (" + e.getMessage() + "); keys only it holds past this point are not checked"))) {
            for (byte[] key = keys.next(); key != null; key = keys.next()) {
                inFlight.acquire();
                repair(base, f, key, 1, inFlight);
            }
            inFlight.acquire(concurrency); // every repair answered
        } finally {
            ticker.shutdownNow();
        }
        tally.print(err, tally.summary());
        if (tally.complete()) return 0;
        // Repairing a key twice is harmless (it sends only what a replica lacks), so the remedy is simple.
        tally.print(err, secretRefused
                ? "dht repair: give --cluster-secret-file the secret the nodes were started with (bin/dht cluster keeps it in DATA/cluster-secret), and run it again"
                : "dht repair: run it again once every node is up and answering");
        return 1;
    }

    /** Asks the coordinator to repair {@code key}; releases a permit of {@code inFlight} once it is settled. */
    private void repair(String base, int f, byte[] key, int attempt, Semaphore inFlight) {
        CompletableFuture<HttpResponse<Void>> answer;
        try {
            // built inside the try too: whatever throws must settle the key and give its permit back,
            // or the final wait for every permit would never end
            HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/v0/entity?id=" + ClientOptions.encode(key)
                            + "&from=" + f + "&repair=all"))
                    .timeout(Duration.ofSeconds(client.timeoutSeconds)).GET().build();
            answer = http.sendAsync(request, HttpResponse.BodyHandlers.discarding());
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((r, e) -> {
            // 503 is the node's overload control: the key was not looked at, so it is worth asking again
            if (e == null && r.statusCode() == 503 && attempt < ATTEMPTS_WHEN_OVERLOADED) {
                CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS).execute(() -> repair(base, f, key, attempt + 1, inFlight));
                return;
            }
            try {
                settle(key, r, e);
            } finally {
                inFlight.release();
            }
        });
    }

    private void settle(byte[] key, HttpResponse<Void> r, Throwable e) {
        tally.checked.increment();
        if (e != null) {
            keyFailed(key, "no answer (" + (e.getCause() != null ? e.getCause() : e) + ")");
            return;
        }
        String header = r.headers().firstValue(REPAIR_HEADER).orElse(null);
        int status = r.statusCode();
        if (header == null) {
            keyFailed(key, status + " without the " + REPAIR_HEADER + " header" + (status == 200 || status == 404
                    ? " (a node that does not know repair=all?)" : ""));
            return;
        }
        int sent = count(header, SENT);
        int failed = count(header, FAILED);
        int unreachable = count(header, UNREACHABLE);
        tally.sent.add(sent);
        tally.writesFailed.add(failed);
        if ((status != 200 && status != 404) || failed > 0 || unreachable > 0) keyFailed(key, status + " (" + header + ")");
    }

    private void keyFailed(byte[] key, String why) {
        tally.keysFailed.increment();
        int n = failuresListed.incrementAndGet();
        if (n <= FAILURES_LISTED) tally.print(err, "dht repair: key " + printable(key) + " not fully repaired: " + why);
        if (n == FAILURES_LISTED + 1) tally.print(err, "dht repair: further keys not fully repaired are counted, not listed");
    }

    /** A node's stream failed, at its open or mid-run (a reopen after a cut may meet a node restarted with a secret). */
    private void streamFailed(String node, IOException e, String why) {
        if (e instanceof NodeKeyStream.SecretRefusedException) secretRefused = true;
        nodeFailed(node, why);
    }

    private void nodeFailed(String node, String why) {
        tally.nodesNotReachable.incrementAndGet();
        tally.print(err, "dht repair: node " + node + ": " + why + "; the repair is incomplete");
    }

    /** The nodes' stored bytes (tables and memtables) from each one's status; 0 when any cannot say. */
    private long storedBytes(List<String> nodes) {
        long total = 0;
        for (String node : nodes) {
            try {
                HttpResponse<String> s = http.send(HttpRequest.newBuilder(URI.create(node + "/v0/status"))
                        .timeout(Duration.ofSeconds(client.timeoutSeconds)).build(), HttpResponse.BodyHandlers.ofString());
                long tables = number(s.body(), "tableBytes");
                long memtables = number(s.body(), "memtableBytes");
                if (s.statusCode() != 200 || tables < 0 || memtables < 0) return 0;
                total += tables + memtables;
            } catch (IOException e) {
                return 0; // its stream fails too, and says so
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
        }
        return total;
    }

    /**
     * The "cluster" list of a node's status JSON: the quoted strings after {@code "cluster":[} up to
     * the bracket that closes it outside any string (a URL may hold brackets: {@code http://[::1]:8080}).
     */
    static List<String> cluster(String statusJson) {
        List<String> out = new ArrayList<>();
        int i = statusJson.indexOf("\"cluster\":[");
        if (i < 0) return out;
        i += "\"cluster\":[".length();
        while (i < statusJson.length() && statusJson.charAt(i) != ']') {
            if (statusJson.charAt(i) != '"') {
                i++;
                continue;
            }
            StringBuilder url = new StringBuilder();
            for (i++; i < statusJson.length() && statusJson.charAt(i) != '"'; i++) {
                char c = statusJson.charAt(i);
                if (c == '\\' && i + 1 < statusJson.length()) c = statusJson.charAt(++i);
                url.append(c);
            }
            out.add(url.toString());
            i++;
        }
        return out;
    }

    private static long number(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\":(\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    // compiled once: every key's answer is read with them
    private static final Pattern SENT = countPattern("sent");
    private static final Pattern FAILED = countPattern("failed");
    private static final Pattern UNREACHABLE = countPattern("unreachable");

    private static Pattern countPattern(String name) {
        return Pattern.compile("(?:^|\\s)" + name + "=(\\d+)");
    }

    private static int count(String header, Pattern field) {
        Matcher m = field.matcher(header);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    /** A key for a message: as UTF-8, control characters as \xHH, cut after 100 characters. */
    private static String printable(byte[] key) {
        String s = new String(key, StandardCharsets.UTF_8);
        StringBuilder b = new StringBuilder();
        int i = 0;
        for (; i < s.length() && i < 100; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) b.append(String.format("\\x%02x", (int) c)); else b.append(c);
        }
        return i < s.length() ? b + "..." : b.toString();
    }
}
