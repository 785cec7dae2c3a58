package dht.client;

import static dht.client.StubNode.Answer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What goes on the wire: parameters only when set, keys percent-encoded byte by byte. */
class RequestFormTest {
    @Test
    void unsetOptionsAreNotSent() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.of(201));
             DhtClient client = DhtClient.create(stub.url())) {
            client.put("k", "v");

            assertThat(stub.seen().getFirst().query()).isEqualTo("id=k");
        }
    }

    @Test
    void ackFromAndTtlAreSentWhenSet() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.of(201));
             DhtClient client = DhtClient.create(stub.url())) {
            client.put("k", "v", WriteOptions.defaults().ack(2).from(3).ttl(Duration.ofMinutes(1)));

            assertThat(stub.seen().getFirst().method()).isEqualTo("PUT");
            assertThat(stub.seen().getFirst().query()).isEqualTo("id=k&ack=2&from=3&ttl=60");
        }
    }

    @Test
    void aDeleteNeverSendsTtl() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.of(202));
             DhtClient client = DhtClient.create(stub.url())) {
            client.delete("k", WriteOptions.defaults().ack(1).ttlSeconds(5));

            assertThat(stub.seen().getFirst().query()).isEqualTo("id=k&ack=1");
        }
    }

    @Test
    void aScanSendsItsRangeScopeAndAck() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.of(400));
             DhtClient client = DhtClient.create(stub.url())) {
            assertThatThrownBy(() -> client.scan("a b", "c/d", ScanOptions.defaults().local().ack(1)))
                    .isInstanceOf(BadRequestException.class);

            assertThat(stub.seen().getFirst().query()).isEqualTo("start=a%20b&end=c/d&scope=local&ack=1");
        }
    }

    @Test
    void aScanSendsItsLimitAndRefusesANonPositiveOne() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.of(400));
             DhtClient client = DhtClient.create(stub.url())) {
            assertThatThrownBy(() -> client.scan("a", null, ScanOptions.defaults().limit(100)))
                    .isInstanceOf(BadRequestException.class);
            assertThatThrownBy(() -> client.scan("a", "b", ScanOptions.defaults().limit(5).local().ack(1)))
                    .isInstanceOf(BadRequestException.class);

            assertThat(stub.seen().get(0).query()).isEqualTo("start=a&limit=100");
            assertThat(stub.seen().get(1).query()).isEqualTo("start=a&end=b&scope=local&ack=1&limit=5");
        }
        assertThatThrownBy(() -> ScanOptions.defaults().limit(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScanOptions.defaults().limit(-3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aClusterScopeAskedForIsSaid() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.of(400));
             DhtClient client = DhtClient.create(stub.url())) {
            assertThatThrownBy(() -> client.scan("a", null, ScanOptions.defaults().cluster().ack(2)))
                    .isInstanceOf(BadRequestException.class);
            assertThatThrownBy(() -> client.scan("a", null, ScanOptions.defaults()))
                    .isInstanceOf(BadRequestException.class);

            assertThat(stub.seen().get(0).query()).isEqualTo("start=a&scope=cluster&ack=2");
            assertThat(stub.seen().get(1).query()).as("the node's own default").isEqualTo("start=a");
        }
    }

    @Test
    void keysArePercentEncodedByteByByte() {
        Query q = new Query("/v0/entity").bytes("id", new byte[] {'a', (byte) 0xFF, '&', '+', '~', '%'});

        assertThat(q).hasToString("/v0/entity?id=a%FF%26%2B~%25");
    }

    /** What a query value may hold as it is stays so: a key of slashes costs one byte each of the URI limit. */
    @Test
    void charactersAQueryValueMayHoldGoAsTheyAre() {
        assertThat(new Query("/v0/entity").text("id", "a/b:c@d!e*f,g;h$i-j.k_l~m"))
                .hasToString("/v0/entity?id=a/b:c@d!e*f,g;h$i-j.k_l~m");
        assertThat(new Query("/v0/entity").text("id", "x+y&z=1%#é \u0000?"))
                .hasToString("/v0/entity?id=x%2By%26z%3D1%25%23%C3%A9%20%00%3F");
    }

    @Test
    void aBuilderRefusesNoNodeOrAUrlThatIsNoNodes() {
        assertThatThrownBy(() -> DhtClient.builder().nodes("http://h:1/v0")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DhtClient.builder().build()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void optionsAreImmutableValues() {
        WriteOptions base = WriteOptions.defaults();
        WriteOptions quorum = base.ack(2).from(3);

        assertThat(base.ack()).isEmpty();
        assertThat(quorum).isEqualTo(WriteOptions.defaults().from(3).ack(2)).isNotEqualTo(base);
        assertThat(ReadOptions.defaults().ack(1)).isEqualTo(ReadOptions.defaults().ack(1));
        assertThat(ScanOptions.defaults().local().isLocal()).isTrue();
        assertThat(ScanOptions.defaults().limit(3).local()).isEqualTo(ScanOptions.defaults().local().limit(3))
                .isNotEqualTo(ScanOptions.defaults().local());
        assertThat(ScanOptions.defaults().limit()).isEmpty();
        assertThat(ScanOptions.defaults().cluster().limit(7).limit()).hasValue(7);
        assertThat(ScanOptions.defaults().cluster()).isNotEqualTo(ScanOptions.defaults()).isNotEqualTo(ScanOptions.defaults().local());
        assertThatThrownBy(() -> base.ttl(Duration.ofMillis(1500))).isInstanceOf(IllegalArgumentException.class);
        // the node's range, checked before anything is sent
        assertThat(base.ttlSeconds(WriteOptions.MAX_TTL_SECONDS).ttlSeconds()).hasValue(630_720_000L);
        assertThatThrownBy(() -> base.ttlSeconds(WriteOptions.MAX_TTL_SECONDS + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> base.ttlSeconds(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
