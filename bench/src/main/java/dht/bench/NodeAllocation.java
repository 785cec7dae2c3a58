package dht.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Heap bytes the nodes under test allocated per request over the measured window: each node's
 * {@code jvm.allocatedBytes} from {@code GET /v0/status}, read when the window opens and again
 * when the run ends, summed over the nodes and divided by the requests answered. It counts
 * everything the nodes allocated meanwhile (flushes and compactions too), which is the cost a
 * request really carries; a flame graph says where it goes, this says how much. A node that does not
 * report the figure (an older build) or cannot be reached leaves the line saying so.
 */
final class NodeAllocation {
    private static final Pattern ALLOCATED = Pattern.compile("\"allocatedBytes\":(-?\\d+)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Set<String> nodes = new LinkedHashSet<>();
    private final CompletableFuture<Map<String, Long>> before;

    private NodeAllocation(List<Target> targets, Duration delay) {
        targets.forEach(t -> nodes.add(t.url()));
        before = CompletableFuture.supplyAsync(() -> {
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Map.of();
            }
            return sample();
        }, command -> Thread.ofVirtual().start(command));
    }

    /** Reads the nodes' counters once {@code delay} (the warm-up) has passed. */
    static NodeAllocation startAfter(List<Target> targets, Duration delay) {
        return new NodeAllocation(targets, delay);
    }

    /** Reads the counters again and describes the difference, per answered request. */
    String finish(long requests) {
        Map<String, Long> start = before.join();
        Map<String, Long> end = sample();
        long total = 0;
        for (String node : nodes) {
            Long a = start.get(node);
            Long b = end.get(node);
            if (a == null || b == null) {
                return "Node allocation: not known (" + node + " did not answer /v0/status with 200 "
                        + (b == null ? "at the end of the run)" : "when the measured window began)");
            }
            if (a < 0 || b < 0) {
                return "Node allocation: not reported by " + node;
            }
            if (b < a) { // its counter starts again at a restart
                return "Node allocation: not known (" + node + " restarted during the run)";
            }
            total += b - a;
        }
        if (requests <= 0) {
            return "Node allocation: no requests answered";
        }
        return String.format(Locale.ROOT, "Node allocation: %,d bytes/request (%,.1f MiB over the measured window, %d node%s)",
                total / requests, total / 1048576.0, nodes.size(), nodes.size() == 1 ? "" : "s");
    }

    private Map<String, Long> sample() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String node : nodes) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(node + "/v0/status"))
                        .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
                Matcher m = ALLOCATED.matcher(r.body());
                // A 200 without the counter (nginx, say): -1, told apart from a node that did not
                // answer, or answered otherwise (a stopping node's 503): absent.
                if (r.statusCode() == 200) out.put(node, m.find() ? Long.parseLong(m.group(1)) : -1L);
            } catch (java.io.IOException e) {
                // not reported: finish() names the node
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return out;
            }
        }
        return out;
    }
}
