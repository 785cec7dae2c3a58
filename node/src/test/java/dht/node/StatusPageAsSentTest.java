package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /ui} as sent, before any script runs (curl, a health check, a text browser): the
 * HTML names every member with "up" or "down" as this node sees it, and a member stopped reads
 * "down" within a few seconds. Before, the rows came only from the page's script, so without one
 * the page named no member at all.
 */
class StatusPageAsSentTest {
    private static final Pattern ROW = Pattern.compile("<tr[^>]*><td>([^<]+)</td><td class=\"state (up|down)\">(up|down)</td>");

    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private String page(String url) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url + "/ui")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
        return r.body();
    }

    private static String state(String html, String member) {
        Matcher m = ROW.matcher(html);
        while (m.find()) {
            if (m.group(1).equals(member)) return m.group(3);
        }
        return "missing";
    }

    @Test
    void namesEveryMemberUpOrDownWithoutAScript() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        List<String> urls = ports.stream().map(p -> "http://localhost:" + p).toList();
        for (int i = 0; i < 3; i++) {
            nodes.add(Node.start(TestNode.inCluster(NodeConfig.single(ports.get(i), dir.resolve("n" + i)), urls)));
        }
        String first = urls.getFirst();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        String html = page(first);
        while (!allUp(html, urls) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            html = page(first);
        }
        assertThat(html).contains("<span id=\"self\">" + first + "</span>");
        for (String url : urls) assertThat(state(html, url)).as("%s in %s", url, html).isEqualTo("up");

        nodes.get(2).close();
        deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!state(page(first), urls.get(2)).equals("down") && System.nanoTime() < deadline) Thread.sleep(200);
        html = page(first);
        assertThat(state(html, urls.get(2))).as("the stopped member").isEqualTo("down");
        assertThat(state(html, urls.get(1))).isEqualTo("up");
        assertThat(state(html, first)).as("this node").isEqualTo("up");
    }

    private static boolean allUp(String html, List<String> urls) {
        return urls.stream().allMatch(u -> state(html, u).equals("up"));
    }
}
