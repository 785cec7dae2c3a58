package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The public API's status codes and bad-input answers, over real sockets. */
class HttpApiTest {
    @TempDir
    static Path dir;
    static TestNode node;

    @BeforeAll
    static void start() throws Exception {
        node = TestNode.start(dir);
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void putGetDeleteCycle() throws Exception {
        assertThat(node.get("/v0/entity?id=cycle").statusCode()).isEqualTo(404);
        HttpResponse<byte[]> put = node.put("/v0/entity?id=cycle", "v1");
        assertThat(put.statusCode()).isEqualTo(201);
        assertThat(put.headers().firstValue("content-length")).hasValue("0");
        HttpResponse<byte[]> get = node.get("/v0/entity?id=cycle");
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(text(get)).isEqualTo("v1");
        assertThat(node.put("/v0/entity?id=cycle", "v2").statusCode()).isEqualTo(201);
        assertThat(text(node.get("/v0/entity?id=cycle"))).isEqualTo("v2");
        assertThat(node.send("DELETE", "/v0/entity?id=cycle", null).statusCode()).isEqualTo(202);
        assertThat(node.get("/v0/entity?id=cycle").statusCode()).isEqualTo(404);
    }

    /**
     * A node that is its whole cluster answers a store that fails with the contract's 504 for fewer
     * than ack replicas, and says that the replica was its own store (a user of one node used to
     * read only "not enough replicas answered" when the disk failed).
     */
    @Test
    void aSingleNodeWhoseStoreFailsSaysSoInIts504(@TempDir Path own) throws Exception {
        try (TestNode failing = TestNode.start(TestNode.config(own), s -> new DelegatingStore(s) {
            @Override
            public void put(byte[] key, byte[] value, long timestamp) throws java.io.IOException {
                throw new java.io.IOException("injected: disk gone");
            }

            @Override
            public void write(java.util.List<dht.storage.Entry> entries) throws java.io.IOException {
                throw new java.io.IOException("injected: disk gone");
            }

            @Override
            public dht.storage.Entry get(byte[] key) throws java.io.IOException {
                throw new java.io.IOException("injected: disk gone");
            }
        }, NodeWiring::startCluster)) {
            for (HttpResponse<byte[]> r : java.util.List.of(failing.put("/v0/entity?id=k", "v"), failing.get("/v0/entity?id=k"))) {
                assertThat(r.statusCode()).isEqualTo(504);
                assertThat(text(r).strip()).isEqualTo(
                        "not enough replicas answered: this node's store did not complete the request (its log says why)");
            }
        }
    }

    @Test
    void emptyValueIsAValue() throws Exception {
        assertThat(node.put("/v0/entity?id=empty", "").statusCode()).isEqualTo(201);
        HttpResponse<byte[]> get = node.get("/v0/entity?id=empty");
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(get.body()).isEmpty();
    }

    @Test
    void binaryValuesAndEncodedKeysRoundTrip() throws Exception {
        byte[] value = new byte[70_000];
        for (int i = 0; i < value.length; i++) value[i] = (byte) (i * 31);
        assertThat(node.send("PUT", "/v0/entity?id=a%20b%2Bc%26d%3D%FF", value).statusCode()).isEqualTo(201);
        assertThat(node.get("/v0/entity?id=a%20b%2Bc%26d%3D%FF").body()).isEqualTo(value);
        // '+' is a space: the same key
        assertThat(node.get("/v0/entity?id=a+b%2Bc%26d%3D%FF").body()).isEqualTo(value);
        assertThat(node.get("/v0/entity?id=a%20b%2Bc%26d%3D").statusCode()).isEqualTo(404);
        // unknown parameters are ignored
        assertThat(node.get("/v0/entity?x=1&id=a%20b%2Bc%26d%3D%FF&y").statusCode()).isEqualTo(200);
    }

    @Test
    void ackAndFromWithinTheClusterAreAccepted() throws Exception {
        assertThat(node.put("/v0/entity?id=q&ack=1&from=1", "x").statusCode()).isEqualTo(201);
        assertThat(node.get("/v0/entity?id=q&ack=1").statusCode()).isEqualTo(200);
        assertThat(node.get("/v0/entity?id=q&from=1").statusCode()).isEqualTo(200);
        assertThat(node.get("/v0/entity?id=q&ack=01&from=1").statusCode()).isEqualTo(200);
    }

    @Test
    void badInputIs400AndChangesNothing() throws Exception {
        String[] bad = {
            "/v0/entity", "/v0/entity?id=", "/v0/entity?id", "/v0/entity?ack=1",
            "/v0/entity?id=k&ack=0", "/v0/entity?id=k&ack=-1", "/v0/entity?id=k&ack=x", "/v0/entity?id=k&ack=",
            "/v0/entity?id=k&from=0", "/v0/entity?id=k&ack=1.5", "/v0/entity?id=k&ack=+1",
            "/v0/entity?id=k&ack=99999999999", "/v0/entity?id=k&ack=2&from=1", "/v0/entity?id=k&from=2",
            "/v0/entity?id=k&ack=2", "/v0/entity?id=k&id=j",
        };
        for (String uri : bad) {
            HttpResponse<byte[]> put = node.put(uri, "must not be stored");
            assertThat(put.statusCode()).as("PUT %s", uri).isEqualTo(400);
            assertThat(text(put)).as("reason for %s", uri).isNotBlank();
            assertThat(put.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
            assertThat(node.get(uri).statusCode()).as("GET %s", uri).isEqualTo(400);
            assertThat(node.send("DELETE", uri, null).statusCode()).as("DELETE %s", uri).isEqualTo(400);
        }
        assertThat(node.get("/v0/entity?id=k").statusCode()).isEqualTo(404);
        assertThat(node.get("/v0/entity?id=j").statusCode()).isEqualTo(404);
        // the reason names the bound that was broken, also when 'from' was left to its default
        assertThat(text(node.get("/v0/entity?id=k&ack=2")).strip()).isEqualTo("'ack' (2) is larger than the cluster (1 node, the default 'from')");
        assertThat(text(node.get("/v0/entity?id=k&ack=2&from=1")).strip()).isEqualTo("'ack' (2) is larger than 'from' (1)");
        assertThat(text(node.get("/v0/entity?id=k&from=2")).strip()).isEqualTo("'from' is larger than the cluster (1 node)");
        assertThat(text(node.get("/v0/entities?start=a&ack=2")).strip()).isEqualTo("'ack' is larger than the cluster (1 node)");
    }

    @Test
    void otherMethodsAre405() throws Exception {
        for (String m : new String[] {"POST", "PATCH", "OPTIONS"}) {
            HttpResponse<byte[]> r = node.send(m, "/v0/entity?id=k", new byte[0]);
            assertThat(r.statusCode()).as(m).isEqualTo(405);
            assertThat(r.headers().firstValue("allow")).hasValue("GET, PUT, DELETE");
        }
        assertThat(node.send("POST", "/v0/entities?start=a", new byte[0]).statusCode()).isEqualTo(405);
        assertThat(node.send("DELETE", "/v0/status", null).statusCode()).isEqualTo(405);
    }

    @Test
    void otherPathsAre400() throws Exception {
        for (String p : new String[] {"/", "/v0", "/v0/entity/", "/v0/entityx?id=k", "/v1/entity?id=k", "/V0/entity?id=k",
                "/admin/nothing"}) {
            assertThat(node.get(p).statusCode()).as(p).isEqualTo(400);
        }
    }

    @Test
    void statusIsJson() throws Exception {
        HttpResponse<byte[]> r = node.get("/v0/status");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
        String json = text(r);
        assertThat(json).startsWith("{\"node\":\"http://localhost:" + node.node.port() + "\"")
                .contains("\"cluster\":[\"http://localhost:" + node.node.port() + "\"]")
                .contains("\"uptimeMillis\":").contains("\"storage\":{\"tables\":")
                .contains("\"pendingFlushes\":").contains("\"pendingCompactions\":").contains("\"damagedTables\":0,\"errors\":0,\"lastError\":null,\"lastErrorAgeMillis\":-1}").contains("\"inFlight\":")
                .containsPattern("\"jvm\":\\{\"heapUsedBytes\":\\d+,\"allocatedBytes\":[1-9]\\d*,\"gcCount\":\\d+,\"gcMillis\":\\d+}");
    }

    @Test
    void scanValidation() throws Exception {
        assertThat(node.get("/v0/entities").statusCode()).isEqualTo(400);
        assertThat(node.get("/v0/entities?start=").statusCode()).isEqualTo(400);
        assertThat(node.get("/v0/entities?start=a&scope=galaxy").statusCode()).isEqualTo(400);
        assertThat(node.get("/v0/entities?start=a&scope=cluster&ack=0").statusCode()).isEqualTo(400);
        assertThat(node.get("/v0/entities?start=a&scope=cluster&ack=2").statusCode()).isEqualTo(400);
        assertThat(node.get("/v0/entities?start=a&ack=2").statusCode()).isEqualTo(400);
        assertThat(node.get("/v0/entities?start=a&scope=local&ack=abc").statusCode()).isEqualTo(400);
        assertThat(node.get("/v0/entities?start=a&ack=1").statusCode()).isEqualTo(200);
        assertThat(node.get("/v0/entities?start=a&from=0").statusCode()).isEqualTo(400);
        assertThat(node.get("/v0/entities?start=a&from=abc").statusCode()).isEqualTo(400);
        assertThat(text(node.get("/v0/entities?start=a&from=2")).strip()).isEqualTo("'from' is larger than the cluster (1 node)");
        assertThat(node.get("/v0/entities?start=a&from=1").statusCode()).isEqualTo(200);
        assertThat(text(node.get("/v0/entity?id=k&ack=2147483648")).strip())
                .isEqualTo("'ack' must be a positive integer (decimal digits, at most 2147483647)");
        // the value is bounded, not the digits: leading zeros as any client may send them
        assertThat(node.get("/v0/entities?start=a&ack=00000000001&from=000000000001").statusCode()).isEqualTo(200);
        assertThat(node.get("/v0/entity?id=k&ack=00000000002147483648").statusCode()).isEqualTo(400);
        HttpResponse<byte[]> empty = node.get("/v0/entities?start=b&end=a");
        assertThat(empty.statusCode()).isEqualTo(200);
        assertThat(empty.headers().firstValue("transfer-encoding")).hasValue("chunked");
        assertThat(empty.body()).isEmpty();
        assertThat(node.get("/v0/entities?start=b&end=b").body()).isEmpty();
    }
}
