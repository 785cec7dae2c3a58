package dht.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/** A node's {@code GET /v0/status} for process tests: read once, or awaited until it says something. */
final class NodeStatus {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private NodeStatus() {
    }

    /** The status body of {@code n}. */
    static String of(NodeProcess n) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(n.url() + "/v0/status")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Waits (up to {@code timeout}) until every one of {@code nodes} has {@code text} in its status; false if not. */
    static boolean await(List<NodeProcess> nodes, String text, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean all = true;
            for (NodeProcess n : nodes) {
                try {
                    all &= of(n).contains(text);
                } catch (IOException e) {
                    all = false;
                }
            }
            if (all) return true;
            if (System.nanoTime() > deadline) return false;
            Thread.sleep(200);
        }
    }
}
