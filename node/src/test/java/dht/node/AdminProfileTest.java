package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin profile endpoint end to end, from a loopback client. */
class AdminProfileTest {
    @TempDir
    Path dir;

    @Test
    void loopbackGetsAFlameGraph() throws Exception {
        try (TestNode node = TestNode.start(dir)) {
            HttpResponse<byte[]> r = node.get("/admin/profile?event=cpu&duration=300ms");
            String body = new String(r.body(), StandardCharsets.UTF_8);
            assertThat(r.statusCode()).as(body).isEqualTo(200);
            assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/html");
            assertThat(body).containsIgnoringCase("<html");
            assertThat(node.get("/admin/profile?event=nonsense&duration=1s").statusCode()).isEqualTo(400);
            assertThat(node.get("/admin/profile?event=cpu&duration=soon").statusCode()).isEqualTo(400);
            assertThat(node.send("POST", "/admin/profile", new byte[0]).statusCode()).isEqualTo(405);
        }
    }

    /** With {@code threads=true} each thread's samples hang under a frame naming it (async-profiler's {@code threads}). */
    @Test
    void aProfileByThreadNamesEachThread() throws Exception {
        try (TestNode node = TestNode.start(dir)) {
            HttpResponse<byte[]> r = node.get("/admin/profile?event=wall&duration=300ms&threads=true");
            String body = new String(r.body(), StandardCharsets.UTF_8);
            assertThat(r.statusCode()).as(body).isEqualTo(200);
            assertThat(body).contains("tid=");
            HttpResponse<byte[]> whole = node.get("/admin/profile?event=wall&duration=300ms");
            String merged = new String(whole.body(), StandardCharsets.UTF_8);
            assertThat(whole.statusCode()).as(merged).isEqualTo(200);
            assertThat(merged).doesNotContain("tid=");
            HttpResponse<byte[]> bad = node.get("/admin/profile?event=wall&duration=300ms&threads=yes");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(new String(bad.body(), StandardCharsets.UTF_8)).contains("'threads' must be true or false");
        }
    }
}
