package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /ui} in a real browser: headless Chromium loads the page from one node of a 3-node
 * cluster, runs its script, and the DOM it leaves shows every member "up"; once a member is
 * stopped, the page shows it "down" within a few seconds. Skipped where Chromium is not installed
 * ({@code apt-get install -y chromium}).
 */
class StatusPageBrowserTest {
    /** A member's row as the page renders it: its URL, then its state in words. */
    private static final Pattern ROW = Pattern.compile(
            "<tr data-member=\"([^\"]+)\"[^>]*><td>[^<]*</td><td class=\"state (up|down)\">(up|down)</td>"
                    + "<td class=\"num rate\">([^<]*)</td><td class=\"num p99\">([^<]*)</td>");
    private static final Duration DOWN_WITHIN = Duration.ofSeconds(10);

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    @Test
    void showsEveryMemberAndAStoppedOneDown() throws Exception {
        Optional<String> chromium = chromium();
        Assumptions.assumeTrue(chromium.isPresent(),
                "chromium is not installed (apt-get install -y chromium): the status page's browser test is skipped");
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 3; i++) {
            nodes.add(Node.start(TestNode.inCluster(NodeConfig.single(ports.get(i), dir.resolve("n" + i)), urls)));
        }
        for (int i = 0; i < 20; i++) {
            assertThat(send(0, "PUT", "/v0/entity?id=k" + i, "value " + i).statusCode()).isEqualTo(201);
        }
        String page = urls.get(0) + "/ui";

        String dom = dumpDom(chromium.get(), page);
        assertThat(dom).contains("dht node " + "<span id=\"self\">" + urls.get(0) + "</span>");
        for (String url : urls) assertThat(state(dom, url)).as("state of %s in %s", url, dom).isEqualTo("up");

        nodes.get(2).close();
        long stoppedAt = System.nanoTime();
        String state;
        do {
            send(0, "GET", "/v0/entity?id=k1", null); // a request that reaches the stopped member speeds nothing up: the probe decides
            state = state(dumpDom(chromium.get(), page), urls.get(2));
        } while (!state.equals("down") && System.nanoTime() - stoppedAt < DOWN_WITHIN.toNanos());
        assertThat(state).as("the stopped member, %d ms after its stop", (System.nanoTime() - stoppedAt) / 1_000_000)
                .isEqualTo("down");
        dom = dumpDom(chromium.get(), page);
        assertThat(state(dom, urls.get(0))).isEqualTo("up");
        assertThat(state(dom, urls.get(1))).isEqualTo("up");
    }

    /** The state shown for {@code member}, or "missing" when the page shows no row for it. */
    private static String state(String dom, String member) {
        Matcher m = ROW.matcher(dom);
        while (m.find()) {
            if (m.group(1).equals(member)) return m.group(3);
        }
        return "missing";
    }

    /** The page's DOM once its script has run for a few seconds of virtual time (a few polls). */
    static String dumpDom(String chromium, String url) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(chromium, "--headless", "--no-sandbox", "--disable-gpu",
                "--virtual-time-budget=5000", "--dump-dom", url)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("chromium did not finish");
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    /** Chromium on the PATH, under one of the names distributions give it. */
    static Optional<String> chromium() {
        for (String dirName : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
                File f = new File(dirName, name);
                if (f.canExecute()) return Optional.of(f.getPath());
            }
        }
        return Optional.empty();
    }

    HttpResponse<String> send(int node, String method, String path, String body) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://localhost:" + nodes.get(node).port() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build();
        return client.send(r, HttpResponse.BodyHandlers.ofString());
    }
}
