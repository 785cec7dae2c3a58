package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The in-process nodes of one membership test, on ports picked at construction, and the HTTP calls
 * such a test makes to them: writes of {@code key0..} with a value per key, status fields, a removal
 * asked until the failure detector lets it through, and which copies the members' own stores lack.
 */
final class InProcessMembers implements AutoCloseable {
    final List<Integer> ports = new ArrayList<>();
    final List<String> urls;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    InProcessMembers(int count) {
        for (int i = 0; i < count; i++) ports.add(TestPorts.free());
        urls = ports.stream().map(p -> "http://localhost:" + p).toList();
    }

    /** Starts node {@code i} of each, with {@code config}'s configuration for it. */
    void startAll(IntFunction<NodeConfig> config) throws java.io.IOException {
        for (int i = 0; i < ports.size(); i++) nodes.add(Node.start(config.apply(i)));
    }

    /** Starts node {@code i} again, on its data directory (it was closed). */
    void restart(int i, NodeConfig config) throws java.io.IOException {
        nodes.set(i, Node.start(config));
    }

    HttpResponse<String> send(String url, String method, String pathAndQuery, String body, String... headers) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(120));
        if (headers.length > 0) r.headers(headers);
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Asks {@code url} to leave the cluster; the answer comes once its data moved (or the leave failed). */
    java.util.concurrent.CompletableFuture<HttpResponse<String>> leave(String url) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create(url + "/internal/v0/membership?op=leave&url=" + url))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Writes {@code key0} to {@code key<keys-1>}, each with {@code value(k)}, through the first three nodes in turn. */
    void write(int keys, IntFunction<String> value) throws Exception {
        for (int k = 0; k < keys; k++) {
            assertThat(send(urls.get(k % 3), "PUT", "/v0/entity?id=key" + k, value.apply(k)).statusCode()).as("key%d", k)
                    .isEqualTo(201);
        }
    }

    /** A number in {@code url}'s {@code /v0/status}. */
    long field(String url, String name) throws Exception {
        String status = send(url, "GET", "/v0/status", null).body();
        Matcher m = Pattern.compile("\"" + name + "\":(-?[0-9]+)").matcher(status);
        assertThat(m.find()).as(name + " in " + status).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** {@code url}'s {@code /v0/status} once it shows no node joining, or after {@code wait} if it never does. */
    String statusOnceJoined(Duration wait, String url) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        String status = send(url, "GET", "/v0/status", null).body();
        while (!status.contains("\"joining\":[]") && System.nanoTime() < deadline) {
            Thread.sleep(200);
            status = send(url, "GET", "/v0/status", null).body();
        }
        return status;
    }

    /** Asks {@code via} to remove {@code dead} until it does (its failure detector must see it down first), for 20 s. */
    HttpResponse<String> removeOnceDown(String via, String dead) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        HttpResponse<String> removed;
        do {
            removed = send(via, "POST", "/internal/v0/membership?op=remove&url=" + dead, "");
            if (removed.statusCode() == 200) break;
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        return removed;
    }

    /**
     * Waits up to {@code wait} until each of {@code members} holds every one of the {@code keys}
     * in its own store with {@code value(k)}; returns what is still missing then ("keyK on URL").
     */
    List<String> lackingAfter(Duration wait, List<String> members, int keys, IntFunction<String> value) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        List<String> missing = lacking(members, keys, value);
        while (!missing.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(500);
            missing = lacking(members, keys, value);
        }
        return missing;
    }

    /**
     * Waits up to {@code wait} until each of the {@code keys} is in the own stores of exactly the
     * {@code copies} of {@code members} its placement among them names, with {@code value(k)};
     * returns what is still misplaced then ("keyK missing on URL", "keyK extra on URL").
     */
    List<String> misplacedAfter(Duration wait, List<String> members, int copies, int keys, IntFunction<String> value)
            throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        List<String> wrong = misplaced(members, copies, keys, value);
        while (!wrong.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(500);
            wrong = misplaced(members, copies, keys, value);
        }
        return wrong;
    }

    private List<String> misplaced(List<String> members, int copies, int keys, IntFunction<String> value) throws Exception {
        dht.node.cluster.Placement placement = new dht.node.cluster.Placement(members);
        List<String> out = new ArrayList<>();
        for (String m : members) {
            HttpResponse<String> r = send(m, "GET", "/v0/entities?scope=local&start=key&end=kez", null);
            assertThat(r.statusCode()).isEqualTo(200);
            for (int k = 0; k < keys; k++) {
                boolean owns = placement.replicas(("key" + k).getBytes(java.nio.charset.StandardCharsets.UTF_8), copies).contains(m);
                if (r.body().contains("key" + k + "\n" + value.apply(k)) != owns) {
                    out.add("key" + k + (owns ? " missing on " : " extra on ") + m);
                }
            }
        }
        return out;
    }

    private List<String> lacking(List<String> members, int keys, IntFunction<String> value) throws Exception {
        List<String> out = new ArrayList<>();
        for (String m : members) {
            HttpResponse<String> r = send(m, "GET", "/v0/entities?scope=local&start=key&end=kez", null);
            assertThat(r.statusCode()).isEqualTo(200);
            for (int k = 0; k < keys; k++) {
                if (!r.body().contains("key" + k + "\n" + value.apply(k))) out.add("key" + k + " on " + m);
            }
        }
        return out;
    }

    @Override
    public void close() {
        for (Node n : nodes) n.close();
    }
}
