package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code POST /admin/compact} over a real socket: the store is flushed, then compacted, then the answer goes. */
class CompactRouteTest {
    @TempDir
    Path dir;

    @Test
    void aPostFlushesThenCompactsAndOtherMethodsAre405() throws Exception {
        List<String> calls = new CopyOnWriteArrayList<>();
        try (TestNode node = TestNode.start(TestNode.config(dir), s -> new DelegatingStore(s) {
            @Override
            public void flush() throws IOException {
                calls.add("flush");
            }

            @Override
            public void compact() throws IOException {
                calls.add("compact");
            }
        })) {
            var r = node.send("POST", "/admin/compact", new byte[0]);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(new String(r.body(), StandardCharsets.UTF_8)).startsWith("{\"compactedMillis\":");
            assertThat(calls).containsExactly("flush", "compact");

            var get = node.get("/admin/compact");
            assertThat(get.statusCode()).isEqualTo(405);
            assertThat(get.headers().firstValue("allow")).hasValue("POST");
            assertThat(calls).hasSize(2);
        }
    }
}
