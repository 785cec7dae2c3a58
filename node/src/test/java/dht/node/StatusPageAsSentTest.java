package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
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
    final InProcessMembers cluster = new InProcessMembers(3);

    @AfterEach
    void stop() {
        cluster.close();
    }

    private String page(String url) throws Exception {
        HttpResponse<String> r = cluster.send(url, "GET", "/ui", null);
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

    /** {@code url}'s page once it shows {@code member} in {@code expected} state, or after 10 s. */
    private String pageShowing(String url, String member, String expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        String html = page(url);
        while (!state(html, member).equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            html = page(url);
        }
        return html;
    }

    @Test
    void namesEveryMemberUpOrDownWithoutAScript() throws Exception {
        List<String> urls = cluster.urls;
        cluster.startAll(i -> TestNode.inCluster(NodeConfig.single(cluster.ports.get(i), dir.resolve("n" + i)), urls));
        String first = urls.getFirst();
        for (String url : urls) pageShowing(first, url, "up");
        String html = page(first);
        assertThat(html).contains("<span id=\"self\">" + first + "</span>");
        for (String url : urls) assertThat(state(html, url)).as("%s in %s", url, html).isEqualTo("up");

        cluster.nodes.get(2).close();
        html = pageShowing(first, urls.get(2), "down");
        assertThat(state(html, urls.get(2))).as("the stopped member").isEqualTo("down");
        assertThat(state(html, urls.get(1))).isEqualTo("up");
        assertThat(state(html, first)).as("this node").isEqualTo("up");
    }
}
