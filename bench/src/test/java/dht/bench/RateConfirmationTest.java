package dht.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The report's check of a sweep's rate: it steps down until a run holds, and says when none did. */
class RateConfirmationTest {
    private static final byte[] OK = "ok".getBytes(StandardCharsets.US_ASCII);

    @Test
    void aRateThatHoldsIsConfirmedInOneRun() throws Exception {
        try (TestServers.Running server = TestServers.start(ex -> TestServers.answer(ex, 200, OK), 4)) {
            RateConfirmation.Outcome o = confirm(server.url(), 100);

            assertThat(o.held()).isTrue();
            assertThat(o.attempts()).hasSize(1);
            assertThat(o.rate()).isEqualTo(100);
            assertThat(o.table()).contains("held: 100 req/s");
        }
    }

    /** The first run's window gets 5xx (a node in trouble), the next does not: 85% of the rate held. */
    @Test
    void aRateThatDoesNotHoldStepsDownToOneThatDoes() throws Exception {
        AtomicInteger served = new AtomicInteger();
        try (TestServers.Running server = TestServers.start(ex -> TestServers.answer(ex, served.incrementAndGet() <= 100 ? 500 : 200, OK), 4)) {
            RateConfirmation.Outcome o = confirm(server.url(), 100);

            assertThat(o.attempts()).extracting(SweepCommand.Step::pass).containsExactly(false, true);
            assertThat(o.held()).isTrue();
            assertThat(o.rate()).isEqualTo(85);
            assertThat(o.lastRun().spec().rate()).isEqualTo(85);
        }
    }

    /** A server that never meets the bound: every fraction is tried, and the outcome says none held. */
    @Test
    void whenNoRateHoldsTheLowestTriedIsReportedAsSuch() throws Exception {
        try (TestServers.Running server = TestServers.start(ex -> TestServers.answer(ex, 503, OK), 4)) {
            RateConfirmation.Outcome o = confirm(server.url(), 100);

            assertThat(o.attempts()).extracting(SweepCommand.Step::rate).containsExactly(100.0, 85.0, 70.0);
            assertThat(o.held()).isFalse();
            assertThat(o.rate()).isEqualTo(70);
            assertThat(o.table()).contains("held: none of these rates");
        }
    }

    private static RateConfirmation.Outcome confirm(String url, double rate) throws Exception {
        TargetOptions target = new TargetOptions();
        target.urls = List.of(url);
        target.connections = 1;
        target.timeout = Duration.ofSeconds(2);
        target.keys = 1000;
        target.valueSize = 0;
        LoadOptions load = new LoadOptions();
        load.workload = Workload.get;
        load.distribution = KeyDistribution.Kind.uniform;
        load.warmup = Duration.ZERO;
        load.readRatio = 0.9;
        load.rangeLength = 1;
        load.spin = Duration.ofNanos(20_000);
        // a bound far above what a loaded machine adds to a fast answer at 100 req/s
        return RateConfirmation.confirm(load, target, rate, Duration.ofMillis(300), Duration.ofSeconds(1), Duration.ofMillis(200));
    }
}
