package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dht.testkit.NetworkNamespaces;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four real nodes, replication factor 3, each in a network namespace of its own. One is cut off
 * from the others (not from the clients), and {@code bin/dht remove} drops it: to the members it
 * looks dead. Cut off, it does not know, and acknowledges {@code ack=1} writes of keys it holds a
 * copy of. Once the partition heals it learns of its removal and pushes what it holds to the
 * owners, so those writes read through the members (a black-box tester's finding: before, they
 * were lost; here its hints may deliver them too, so the test also counts what the push moved).
 * Needs root and iproute2, as {@link PartitionsProcessTest}.
 */
class RemovedWhileCutOffProcessTest {
    static final int PORT = 8080;

    @TempDir
    Path tmp;

    private final List<NodeProcess> nodes = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();
    private NetworkNamespaces net;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    @BeforeAll
    static void needsNamespaces() {
        assumeTrue(NetworkNamespaces.isAvailable(),
                () -> "network namespaces unavailable (" + NetworkNamespaces.unavailableReason() + "): needs root and iproute2");
    }

    @AfterEach
    void stopAll() throws Exception {
        for (NodeProcess n : nodes) n.close();
        if (net != null) net.close();
    }

    @Test
    void writesItAcknowledgedWhileCutOffReachTheOwnersOnceItLearnsOfItsRemoval() throws Exception {
        net = NetworkNamespaces.create(4);
        for (int i = 0; i < 4; i++) urls.add("http://" + net.address(i) + ":" + PORT);
        String cluster = String.join(",", urls);
        for (int i = 0; i < 4; i++) {
            nodes.add(new NodeProcess(net.address(i), List.of("ip", "netns", "exec", net.name(i)), PORT, tmp.resolve("n" + i),
                    List.of("--cluster", cluster, "--self", urls.get(i), "--replication-factor", "3",
                            "--anti-entropy-interval", "5000")));
        }
        for (NodeProcess n : nodes) n.start();
        for (NodeProcess n : nodes) n.awaitReady(Duration.ofSeconds(60));

        net.partition(3);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!send(0, "GET", "/v0/status", null).contains("\"" + urls.get(3) + "\":\"down\"") && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        DhtRun remove = DhtRun.of(Duration.ofSeconds(60), "remove", "--url", urls.get(3), "--via", urls.get(0));
        assertThat(remove.exitCode()).as("stderr: %s", remove.stderr()).isZero();

        Map<String, String> acknowledged = new LinkedHashMap<>();
        for (int k = 0; k < 24; k++) {
            if (send(3, "PUT", "/v0/entity?id=cut" + k + "&ack=1", "v" + k).startsWith("201")) acknowledged.put("cut" + k, "v" + k);
        }
        assertThat(acknowledged).as("the node cut off took writes of keys it holds").isNotEmpty();

        net.healAll();
        List<String> missing = new ArrayList<>();
        deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        do {
            Thread.sleep(1_000);
            missing.clear();
            for (Map.Entry<String, String> e : acknowledged.entrySet()) {
                if (!send(0, "GET", "/v0/entity?id=" + e.getKey(), null).equals("200 " + e.getValue())) missing.add(e.getKey());
            }
        } while (!missing.isEmpty() && System.nanoTime() < deadline);
        assertThat(missing).as("acknowledged by the removed node, not readable through the members").isEmpty();
        // Its hints may bring them too, if the members take them before it learns of its removal;
        // the push does not depend on that: each member counts what it took in.
        long movedIn = 0;
        deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            movedIn = 0;
            for (int i = 0; i < 3; i++) movedIn += field(send(i, "GET", "/v0/status", null), "keysMovedIn");
            if (movedIn >= 3L * acknowledged.size()) break;
            Thread.sleep(500);
        }
        assertThat(movedIn).as("versions the removed node pushed, counted by its three owners").isEqualTo(3L * acknowledged.size());
        assertThat(nodes.get(3).output()).contains("removed from the cluster: " + acknowledged.size() + " versions pushed");
    }

    private static long field(String status, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"" + name + "\":(\\d+)").matcher(status);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** "STATUS BODY" of a request to node {@code i}. */
    private String send(int i, String method, String target, String body) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(urls.get(i) + target)).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> a = http.send(r.build(), HttpResponse.BodyHandlers.ofString());
        return a.statusCode() + " " + a.body();
    }
}
