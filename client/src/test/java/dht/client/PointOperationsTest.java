package dht.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** put, get and delete against a real node: what the HTTP API's first three rows promise. */
class PointOperationsTest {
    @TempDir
    static Path dir;
    static RunningNode node;
    static DhtClient client;

    @BeforeAll
    static void start() throws Exception {
        node = RunningNode.start(dir);
        client = DhtClient.create(node.url());
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (node != null) node.close();
    }

    @Test
    void aValuePutIsReadBack() {
        client.put("greeting", "hello");

        assertThat(client.getString("greeting")).contains("hello");
    }

    @Test
    void anAbsentKeyReadsAsEmpty() {
        assertThat(client.get("never-written".getBytes(StandardCharsets.UTF_8))).isEmpty();
    }

    @Test
    void aDeletedKeyReadsAsEmpty() {
        client.put("doomed", "soon gone");

        client.delete("doomed");

        assertThat(client.getString("doomed")).isEmpty();
    }

    @Test
    void deletingAnAbsentKeySucceeds() {
        client.delete("was-never-there");

        assertThat(client.getString("was-never-there")).isEmpty();
    }

    @Test
    void aLaterPutReplacesTheValue() {
        client.put("counter", "1");
        client.put("counter", "2");

        assertThat(client.getString("counter")).contains("2");
    }

    @Test
    void keysAndValuesAreArbitraryBytes() {
        byte[] key = {(byte) 0xFF, 0, '&', '=', '%', ' ', '+', '\n', '/', '?'};
        byte[] value = new byte[256];
        for (int i = 0; i < value.length; i++) value[i] = (byte) i;

        client.put(key, value);

        assertThat(client.get(key)).hasValueSatisfying(v -> assertThat(v).isEqualTo(value));
        assertThat(client.get(new byte[] {(byte) 0xFF})).isEmpty();
    }

    /** Characters sent unencoded in the query are still the key's exact bytes to the node. */
    @Test
    void keysOfQueryLiteralsAreTheirOwnKeys() {
        client.put("a/b:c@d!e*f,g;h$i", "literal");

        assertThat(client.getString("a/b:c@d!e*f,g;h$i")).contains("literal");
        assertThat(client.getString("a%2Fb:c@d!e*f,g;h$i")).isEmpty();
    }

    @Test
    void anEmptyValueIsAValueNotAnAbsence() {
        client.put("empty".getBytes(StandardCharsets.UTF_8), new byte[0]);

        assertThat(client.get("empty".getBytes(StandardCharsets.UTF_8)))
                .hasValueSatisfying(v -> assertThat(v).isEmpty());
    }

    @Test
    void ackAndFromWithinTheClusterAreAccepted() {
        client.put("replicated", "v", WriteOptions.defaults().ack(1).from(1));

        assertThat(client.getString("replicated", ReadOptions.defaults().ack(1).from(1))).contains("v");
        client.delete("replicated", WriteOptions.defaults().ack(1).from(1));
        assertThat(client.getString("replicated", ReadOptions.defaults().ack(1))).isEmpty();
    }

    @Test
    void fromLargerThanTheClusterIsABadRequestWithTheNodesReason() {
        assertThatThrownBy(() -> client.put("k", "v", WriteOptions.defaults().from(3)))
                .isInstanceOfSatisfying(BadRequestException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.reason()).contains("from").doesNotContain("\n");
                    assertThat(e.node()).isEqualTo(node.url());
                });
        assertThat(client.getString("k")).isEmpty();
    }

    @Test
    void ackLargerThanFromIsABadRequest() {
        assertThatThrownBy(() -> client.getString("k", ReadOptions.defaults().ack(2).from(1)))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("400");
    }

    @Test
    void aValueLargerThanTheNodeTakesIsABadRequest() {
        byte[] tooLarge = new byte[8 * 1024 * 1024 + 1];

        assertThatThrownBy(() -> client.put("big".getBytes(StandardCharsets.UTF_8), tooLarge))
                .isInstanceOfSatisfying(BadRequestException.class, e -> assertThat(e.status()).isEqualTo(413));
    }

    @Test
    void anEmptyKeyOrANonPositiveAckIsRefusedBeforeAnythingIsSent() {
        assertThatThrownBy(() -> client.put("", "v")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WriteOptions.defaults().ack(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReadOptions.defaults().from(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
