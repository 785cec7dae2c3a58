package dht.client;

import static dht.client.StubNode.Answer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.testkit.TestPorts;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Every kind of failure reaches the caller as its own exception type, with the node named. */
class FailuresTest {
    @Test
    void aNodeThatNeverAnswersIsATimeoutAndIsNotRetried() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.never());
             DhtClient client = DhtClient.builder().nodes(stub.url()).requestTimeout(Duration.ofMillis(300)).build()) {
            long t0 = System.nanoTime();

            assertThatThrownBy(() -> client.put("k", "v"))
                    .isInstanceOfSatisfying(DhtTimeoutException.class, e -> {
                        assertThat(e.node()).isEqualTo(stub.url());
                        assertThat(e.status()).isZero();
                    })
                    .hasMessageContaining("300 ms");
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(10));
            assertThat(stub.seen()).hasSize(1);
        }
    }

    @Test
    void aClosedPortIsUnreachable() {
        String url = "http://localhost:" + TestPorts.free();
        try (DhtClient client = DhtClient.create(url)) {
            assertThatThrownBy(() -> client.get(DhtClient.utf8("k")))
                    .isInstanceOfSatisfying(NodeUnreachableException.class, e -> assertThat(e.node()).isEqualTo(url));
            assertThatThrownBy(() -> client.scan("a", null)).isInstanceOf(NodeUnreachableException.class);
        }
    }

    @Test
    void anAsyncCallToAClosedPortFailsItsFutureWithUnreachable() {
        try (DhtClient client = DhtClient.create("http://localhost:" + TestPorts.free())) {
            assertThat(client.putAsync("k", "v")).failsWithin(10, TimeUnit.SECONDS)
                    .withThrowableOfType(ExecutionException.class)
                    .havingCause().isInstanceOf(NodeUnreachableException.class);
        }
    }

    @Test
    void anUnreachableNodeIsSkippedForTheNextOne() throws Exception {
        String closed = "http://localhost:" + TestPorts.free();
        try (StubNode stub = StubNode.answering(Answer.of(201));
             DhtClient client = DhtClient.builder().nodes(closed, stub.url()).build()) {
            for (int i = 0; i < 4; i++) client.put("k" + i, "v");

            assertThat(stub.seen()).hasSize(4);
        }
    }

    @Test
    void whenEveryNodeIsUnreachableEachFailureIsReported() {
        String a = "http://localhost:" + TestPorts.free();
        String b = "http://localhost:" + TestPorts.free();
        try (DhtClient client = DhtClient.builder().nodes(a, b).build()) {
            assertThatThrownBy(() -> client.delete("k"))
                    .isInstanceOfSatisfying(NodeUnreachableException.class,
                            e -> assertThat(e.getSuppressed()).hasSize(1).allMatch(s -> s instanceof NodeUnreachableException));
        }
    }

    @Test
    void anUnexpectedServerErrorIsADhtExceptionWithItsStatusAndReason() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.retryAfter(500, null));
             DhtClient client = DhtClient.create(stub.url())) {
            assertThatThrownBy(() -> client.getString("k"))
                    .isExactlyInstanceOf(DhtException.class)
                    .hasMessageContaining("500")
                    .hasMessageContaining("stub says 500")
                    .satisfies(e -> assertThat(((DhtException) e).status()).isEqualTo(500))
                    .satisfies(e -> assertThat(((DhtException) e).reason()).isEqualTo("stub says 500"));
        }
    }

    /** Every answer's exception carries the node's reason as it sent it, for callers that show it as it is. */
    @Test
    void aQuorumNotReachedCarriesTheNodesReason() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.retryAfter(504, null));
             DhtClient client = DhtClient.create(stub.url())) {
            assertThatThrownBy(() -> client.put("k", "v"))
                    .isInstanceOfSatisfying(QuorumNotReachedException.class, e -> {
                        assertThat(e.status()).isEqualTo(504);
                        assertThat(e.reason()).isEqualTo("stub says 504");
                    });
        }
    }

    @Test
    void aWrongSuccessStatusIsNotTakenForSuccess() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.of(200));
             DhtClient client = DhtClient.create(stub.url())) {
            assertThatThrownBy(() -> client.put("k", "v")).isInstanceOfSatisfying(DhtException.class,
                    e -> assertThat(e.status()).isEqualTo(200));
        }
    }

    @Test
    void aGoneMethodOrPathIsABadRequest() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.retryAfter(405, null));
             DhtClient client = DhtClient.create(stub.url())) {
            assertThatThrownBy(() -> client.delete("k")).isInstanceOfSatisfying(BadRequestException.class, e -> {
                assertThat(e.status()).isEqualTo(405);
                assertThat(e.reason()).isEqualTo("stub says 405");
            });
        }
    }

    @Test
    void retryAfterIsReadAsSecondsOrAsAnHttpDate() {
        assertThat(Failures.retryAfter("2")).isEqualTo(Duration.ofSeconds(2));
        assertThat(Failures.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT")).isEqualTo(Duration.ZERO);
        assertThat(Failures.retryAfter("soon")).isNull();
        assertThat(Failures.retryAfter(null)).isNull();
    }
}
