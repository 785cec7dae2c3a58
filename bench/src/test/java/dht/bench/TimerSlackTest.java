package dht.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Send timers rounded up to a grid: sends are never early, late by less than the slack, and that
 * lateness is charged to the measured latency (it is measured from the intended time), never hidden.
 */
class TimerSlackTest {

    @Test
    void aSendTimeIsTheFirstGridPointAtOrAfterTheIntendedTime() {
        assertThat(BenchConnection.slackedSendTime(1_000, 100)).isEqualTo(1_000);
        assertThat(BenchConnection.slackedSendTime(1_001, 100)).isEqualTo(1_100);
        assertThat(BenchConnection.slackedSendTime(1_099, 100)).isEqualTo(1_100);
        assertThat(BenchConnection.slackedSendTime(-150, 100)).isEqualTo(-100); // nanoTime may be negative
    }

    @Test
    void anOverdueSendGoesOutAtOnceAndAFutureOneWaitsForItsGridPoint() {
        assertThat(BenchConnection.slackedDelay(1_030, 1_050, 100)).isZero(); // overdue, its grid point (1,100) ahead
        assertThat(BenchConnection.slackedDelay(1_050, 1_050, 100)).isZero(); // due now
        assertThat(BenchConnection.slackedDelay(1_060, 1_050, 100)).isEqualTo(50); // waits for 1,100
        assertThat(BenchConnection.slackedDelay(1_100, 1_050, 100)).isEqualTo(50); // on the grid: not later
    }

    @Test
    void slackIsTheDefaultOnlyWhereAThreadSendsMoreThan5000PerSecond() {
        assertThat(LoadGenerator.timerSlackNanos(spec(60_000, 64, 2, -1))).isEqualTo(100_000);
        assertThat(LoadGenerator.timerSlackNanos(spec(10_000, 64, 2, -1))).isZero(); // 5,000 a thread
        assertThat(LoadGenerator.timerSlackNanos(spec(1_000, 1, 1, -1))).isZero(); // precision runs keep spinning
        assertThat(LoadGenerator.timerSlackNanos(spec(0, 64, 2, -1))).isZero(); // closed loop has no timers
        assertThat(LoadGenerator.timerSlackNanos(spec(60_000, 64, 2, 0))).isZero(); // --timer-slack 0
        assertThat(LoadGenerator.timerSlackNanos(spec(100, 1, 1, 5_000_000))).isEqualTo(5_000_000);
    }

    @Test
    void sendsWaitForTheGridAndTheWaitCountsAgainstTheServer() throws Exception {
        try {
            sendsWaitForTheGrid();
        } catch (AssertionError e) {
            BusyMachine.rethrowUnlessBusy(e); // a loaded machine sends late and overdue, whatever the generator does
        }
    }

    private void sendsWaitForTheGrid() throws Exception {
        try (TestServers.Running server = TestServers.start(
                ex -> TestServers.answer(ex, 200, "v".getBytes(StandardCharsets.US_ASCII)), 2)) {
            // one send every 7.3 ms on a 5 ms grid: each send is due before the next grid point and
            // the intended times move 2.3 ms along the grid each time, so the waits spread over 0-5 ms
            long slack = 5_000_000L;
            LoadSpec spec = new LoadSpec(List.of(Target.parse(server.url())), 1, 1, 1e9 / 7_300_000, Duration.ofMillis(200),
                    Duration.ofSeconds(2), Duration.ofSeconds(5), 20_000, requests(), -1, false, 1, slack);
            RunResult r = new LoadGenerator(spec, null).run();
            ConnectionStats s = r.stats();
            assertThat(s.completed).isEqualTo(s.due).isGreaterThan(250);
            assertThat(s.sendLag.getTotalCount()).as("sends that were due in the future").isGreaterThan(s.completed / 2);
            assertThat(s.sendLag.getValueAtPercentile(50)).isBetween(1_000_000L, 4_000_000L);
            assertThat(s.sendLag.getValueAtPercentile(99)).isLessThan(slack + 20_000_000L); // a pause or two may exceed it
            // latency runs from the intended time, so it includes the wait for the grid
            assertThat(s.latency.getMean()).isGreaterThanOrEqualTo(s.sendLag.getMean());
        }
    }

    @Test
    void aBacklogUnderSlackDrainsBackToBack() throws Exception {
        try {
            backlogDrains();
        } catch (AssertionError e) {
            BusyMachine.rethrowUnlessBusy(e); // a loaded machine answers slower than the schedule, whatever the generator does
        }
    }

    private void backlogDrains() throws Exception {
        try (TestServers.Running server = TestServers.start(ex -> {
            TestServers.pause(15); // slower than the schedule: every send is overdue when its turn comes
            TestServers.answer(ex, 200, "v".getBytes(StandardCharsets.US_ASCII));
        }, 2)) {
            LoadSpec spec = new LoadSpec(List.of(Target.parse(server.url())), 1, 1, 100, Duration.ofMillis(200),
                    Duration.ofSeconds(2), Duration.ofSeconds(12), 20_000, requests(), -1, false, 1, 100_000_000L);
            RunResult r = new LoadGenerator(spec, null).run();
            // back to back, about 60 answers a second (fewer on a busy machine, whose 15 ms pauses
            // run long): the 200 due are all answered within the 12 s the generator waits after the
            // window; waiting for a 100 ms grid point after each answer would send about 10 a
            // second, some 140 in those 14 s
            assertThat(r.stats().due).isEqualTo(200);
            assertThat(r.stats().completed).isEqualTo(200);
        }
    }

    private static LoadSpec spec(double rate, int connections, int threads, long slack) {
        return new LoadSpec(List.of(Target.parse("http://127.0.0.1:1")), connections, threads, rate, Duration.ZERO,
                Duration.ofSeconds(1), Duration.ofSeconds(1), 20_000, requests(), -1, false, 1, slack);
    }

    private static RequestFactory requests() {
        KeyDistribution keys = KeyDistribution.of(KeyDistribution.Kind.uniform, 100, 0);
        return new RequestFactory(Workload.get, keys, 10, 0, 0, 1, null, null, 1);
    }
}
