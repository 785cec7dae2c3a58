package dht.node;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every key a PUT can store can be repaired: an operator's repair ({@code repair=all}) may take its
 * request line a little past {@code --max-uri}, as its parameters must; no other request may.
 */
class RepairOfALongKeyTest {
    static final int MAX_URI = 512;

    @TempDir
    static Path dir;
    static TestNode node;

    @BeforeAll
    static void start() throws Exception {
        node = TestNode.start(TestNode.config(TestPorts.free(), dir, 64, 1024, MAX_URI, 1024), s -> s);
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    /** The longest key whose PUT line ({@code PUT /v0/entity?id=K HTTP/1.1}) is exactly the limit. */
    static String longestKey() {
        return "k".repeat(MAX_URI - "PUT /v0/entity?id= HTTP/1.1".length());
    }

    static String line(String method, String target) {
        return method + " " + target + " HTTP/1.1\r\nHost: x\r\n";
    }

    @Test
    void theLongestKeyAPutStoresCanBeRepaired() throws Exception {
        String key = longestKey();
        try (RawHttp c = new RawHttp(node.node.port())) {
            c.send(line("PUT", "/v0/entity?id=" + key) + "Content-Length: 1\r\n\r\nv");
            assertThat(c.read().status()).isEqualTo(201);
            c.send(line("GET", "/v0/entity?id=" + key + "&from=1&repair=all") + "\r\n");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("v");
            assertThat(r.header("x-dht-repair")).isNotNull();
        }
    }

    @Test
    void onlyARepairGoesPastTheLimitAndOnlyByItsSlack() throws Exception {
        String key = longestKey();
        try (RawHttp c = new RawHttp(node.node.port())) {
            c.send(line("GET", "/v0/entity?id=" + key + "&from=1&ack=1") + "\r\n");
            assertThat(c.read().status()).as("a read as long as the repair").isEqualTo(414);
            c.send(line("GET", "/v0/entity?id=" + key + "&from=1&repair=all&x=" + "y".repeat(64)) + "\r\n");
            assertThat(c.read().status()).as("a repair past its slack").isEqualTo(414);
            c.send(line("DELETE", "/v0/entity?id=" + key + "&repair=all") + "\r\n");
            assertThat(c.read().status()).as("a delete that names repair").isEqualTo(414);
        }
    }
}
