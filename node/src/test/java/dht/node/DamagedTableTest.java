package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table file of a running node's store truncated under it (a black-box tester's finding): a GET
 * that needs the table says the store has a damaged table, a scan says what is damaged rather than
 * that an InternalError happened, and the node serves what it can still prove.
 */
class DamagedTableTest {
    @TempDir
    Path dir;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private HttpResponse<String> send(Node node, String method, String pathAndQuery, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + node.port() + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private Path theTable() throws Exception {
        try (Stream<Path> l = Files.list(dir)) {
            return l.filter(p -> p.getFileName().toString().endsWith(".sst")).findFirst().orElseThrow();
        }
    }

    @Test
    void aTruncatedTableIsNamedToClientsAndTheRestIsServed() throws Exception {
        try (Node node = Node.start(TestNode.config(dir))) {
            java.util.Random random = new java.util.Random(7);
            for (int i = 0; i < 300; i++) { // values that do not compress: a table of many pages
                StringBuilder value = new StringBuilder();
                for (int j = 0; j < 8; j++) value.append(Long.toHexString(random.nextLong()));
                assertThat(send(node, "PUT", "/v0/entity?id=key" + i, value.toString()).statusCode()).isEqualTo(201);
            }
            assertThat(send(node, "POST", "/admin/compact", "").statusCode()).isEqualTo(200); // one table
            Path table = theTable();
            try (RandomAccessFile f = new RandomAccessFile(table.toFile(), "rw")) {
                f.setLength(f.length() / 2);
            }
            String name = table.getFileName().toString();

            HttpResponse<String> get = send(node, "GET", "/v0/entity?id=key7", null);
            assertThat(get.statusCode()).isEqualTo(504);
            assertThat(get.body()).contains("damaged table").contains(name).contains("truncated");

            HttpResponse<String> scan = send(node, "GET", "/v0/entities?start=key", null);
            assertThat(scan.statusCode()).isEqualTo(500);
            assertThat(scan.body()).contains(name).contains("truncated").doesNotContain("InternalError");

            // Written after the damage: newer than anything in the table, so proven without it.
            assertThat(send(node, "PUT", "/v0/entity?id=later", "new").statusCode()).isEqualTo(201);
            HttpResponse<String> later = send(node, "GET", "/v0/entity?id=later", null);
            assertThat(later.statusCode()).isEqualTo(200);
            assertThat(later.body()).isEqualTo("new");
            String status = send(node, "GET", "/v0/status", null).body();
            assertThat(status).contains("\"damagedTables\":1").contains("\"errors\":1")
                    .containsPattern("\"lastError\":\"[^\"]*" + name + "[^\"]*truncated[^\"]*\",\"lastErrorAgeMillis\":\\d+}");
            String metrics = send(node, "GET", "/metrics", null).body();
            assertThat(metrics).contains("dht_storage_errors_total 1.0")
                    .containsPattern("dht_storage_last_error_timestamp_seconds [1-9]");
        }
    }
}
