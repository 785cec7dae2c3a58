package dht.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Records flame graphs from the nodes under test over the measured window, through each node's
 * {@code GET /admin/profile?event=E&duration=D} (loopback only unless the node has an admin token,
 * which {@code DHT_ADMIN_TOKEN} supplies as a bearer token). A node profiles one event at a time,
 * so the window is split evenly between the events, all nodes in parallel.
 */
public final class ProfileClient {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<String> events;
    private final Path outDir;

    /**
     * The events a node's {@code /admin/profile} takes. Checked before a run, so that a mistyped one
     * stops the command at once instead of being refused by the node after the whole run.
     */
    static final List<String> EVENTS = List.of("cpu", "alloc", "lock", "wall", "itimer", "ctimer");

    /** @throws BenchException (bad usage) for an event the nodes do not take */
    public ProfileClient(List<String> events, Path outDir) {
        for (String e : events) {
            if (!EVENTS.contains(e)) {
                throw new BenchException("--profile takes " + String.join(", ", EVENTS) + "; not '" + e + "'");
            }
        }
        this.events = events;
        this.outDir = outDir;
    }

    /** Starts after {@code delay}, covers {@code window}; completes with one line per file or failure. */
    public CompletableFuture<List<String>> record(List<Target> targets, Duration delay, Duration window) {
        Set<String> nodes = new LinkedHashSet<>();
        targets.forEach(t -> nodes.add(t.url()));
        Duration slice = window.dividedBy(Math.max(1, events.size()));
        return CompletableFuture.supplyAsync(() -> {
            List<String> lines = new ArrayList<>();
            try {
                Thread.sleep(delay);
                for (String event : events) {
                    List<CompletableFuture<String>> all = new ArrayList<>();
                    for (String node : nodes) {
                        all.add(one(node, event, slice));
                    }
                    for (CompletableFuture<String> f : all) {
                        lines.add(f.join());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                lines.add("profiling interrupted");
            }
            return lines;
        }, command -> Thread.ofVirtual().start(command));
    }

    private CompletableFuture<String> one(String node, String event, Duration d) {
        URI uri = URI.create(node + "/admin/profile?event=" + event + "&duration=" + d.toMillis() + "ms");
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(d.plusSeconds(30)).GET();
        String token = System.getenv("DHT_ADMIN_TOKEN");
        if (token != null && !token.isBlank()) {
            b.header("Authorization", "Bearer " + token);
        }
        String name = "flamegraph-" + event + "-" + node.replaceFirst("^https?://", "").replaceAll("[^A-Za-z0-9.-]", "_") + ".html";
        return http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofByteArray()).handle((resp, err) -> {
            if (err != null) {
                return "profile " + event + " from " + node + " failed: " + err;
            }
            if (resp.statusCode() != 200) {
                return "profile " + event + " from " + node + " failed: HTTP " + resp.statusCode() + " "
                        + new String(resp.body(), java.nio.charset.StandardCharsets.UTF_8).trim();
            }
            try {
                Files.createDirectories(outDir);
                Files.write(outDir.resolve(name), resp.body());
                // An empty graph is a finding (no contended lock in the window, say), said before the
                // path: bench report reads the path after the last ": ".
                boolean empty = FlameGraphSummary.isEmptyProfile(new String(resp.body(), java.nio.charset.StandardCharsets.UTF_8));
                return "profile " + event + " from " + node
                        + (empty ? " (no samples; " + FlameGraphSummary.whyNoSamples(event.equals("lock")) + ")" : "") + ": " + outDir.resolve(name);
            } catch (java.io.IOException e) {
                return "profile " + event + " from " + node + " could not be saved: " + e;
            }
        });
    }
}
