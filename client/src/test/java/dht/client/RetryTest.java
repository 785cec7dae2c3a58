package dht.client;

import static dht.client.StubNode.Answer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** 503 is retried as the policy says, honouring Retry-After; nothing else is. */
class RetryTest {
    @Test
    void a503IsRetriedAfterItsRetryAfter() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.retryAfter(503, "1"), Answer.of(201));
             DhtClient client = DhtClient.create(stub.url())) {
            long t0 = System.nanoTime();

            client.put("k", "v");

            assertThat(stub.seen()).hasSize(2);
            long waited = stub.seen().get(1).nanos() - stub.seen().get(0).nanos();
            assertThat(waited).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(950));
            assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(950));
        }
    }

    @Test
    void a503WithoutRetryAfterIsRetriedAfterTheBackoff() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.of(503), Answer.of(503), Answer.of(200));
             DhtClient client = DhtClient.builder().nodes(stub.url())
                     .retryPolicy(RetryPolicy.defaults().initialDelay(Duration.ofMillis(50))).build()) {
            assertThat(client.getString("k")).contains("");
            assertThat(stub.seen()).hasSize(3);
        }
    }

    @Test
    void retriesAreBoundedAndEndInOverloaded() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.retryAfter(503, "0"));
             DhtClient client = DhtClient.builder().nodes(stub.url()).retryPolicy(RetryPolicy.defaults().maxAttempts(4)).build()) {
            assertThatThrownBy(() -> client.delete("k"))
                    .isInstanceOfSatisfying(OverloadedException.class, e -> {
                        assertThat(e.attempts()).isEqualTo(4);
                        assertThat(e.status()).isEqualTo(503);
                        assertThat(e.reason()).isEqualTo("stub says 503");
                        assertThat(e.retryAfter()).contains(Duration.ZERO);
                    });
            assertThat(stub.seen()).hasSize(4);
        }
    }

    @Test
    void aRetryAfterLongerThanThePolicyWaitsEndsTheRetriesAtOnce() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.retryAfter(503, "3600"));
             DhtClient client = DhtClient.create(stub.url())) {
            long t0 = System.nanoTime();

            assertThatThrownBy(() -> client.put("k", "v"))
                    .isInstanceOfSatisfying(OverloadedException.class,
                            e -> assertThat(e.retryAfter()).contains(Duration.ofHours(1)));
            assertThat(stub.seen()).hasSize(1);
            assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));
        }
    }

    @Test
    void withNoRetriesA503IsReportedAtOnce() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.retryAfter(503, "0"));
             DhtClient client = DhtClient.builder().nodes(stub.url()).retryPolicy(RetryPolicy.none()).build()) {
            assertThatThrownBy(() -> client.put("k", "v")).isInstanceOf(OverloadedException.class);
            assertThat(stub.seen()).hasSize(1);
        }
    }

    @Test
    void a504OnAWriteIsNeverRetried() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.retryAfter(504, "0"), Answer.of(201));
             DhtClient client = DhtClient.create(stub.url())) {
            assertThatThrownBy(() -> client.put("k", "v"))
                    .isInstanceOfSatisfying(QuorumNotReachedException.class, e -> {
                        assertThat(e.status()).isEqualTo(504);
                        assertThat(e.retryAfter()).contains(Duration.ZERO);
                    });
            assertThat(stub.seen()).hasSize(1);
        }
    }

    @Test
    void asyncCallsAreRetriedToo() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.retryAfter(503, "0"), Answer.of(202));
             DhtClient client = DhtClient.create(stub.url())) {
            client.deleteAsync("k").get(10, TimeUnit.SECONDS);

            assertThat(stub.seen()).hasSize(2);
        }
    }

    @Test
    void aScanRefused503IsRetriedBeforeItsFirstEntry() throws Exception {
        try (StubNode stub = StubNode.answering(Answer.retryAfter(503, "0"), Answer.of(503));
             DhtClient client = DhtClient.builder().nodes(stub.url()).retryPolicy(RetryPolicy.defaults().maxAttempts(2)).build()) {
            assertThatThrownBy(() -> client.scan("a", null)).isInstanceOfSatisfying(OverloadedException.class,
                    e -> assertThat(e.attempts()).isEqualTo(2));
            assertThat(stub.seen()).hasSize(2);
        }
    }
}
