package dht.bench;

import static dht.bench.BenchCli.bench;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The sweep against a server of bounded capacity: one thread sleeping 2 ms per request serves at
 * most ~500 req/s (much less when the machine is loaded and sleeps overshoot).
 */
class SweepCommandTest {
    /**
     * A server whose first requests are slow, as a node and a generator still compiling are: the
     * sweep's warm-up takes them, so its first step measures the warm server and passes (without
     * the warm-up the first step would fail and the sweep bisect down to a fraction of capacity).
     * The slow requests are far slower than the bound, and the bound far above what a loaded
     * machine adds to a fast answer at 100 req/s (a loaded machine can push that past 10 ms).
     */
    @Test
    void theWarmUpTakesTheSlowFirstRequestsBeforeTheFirstStep() throws Exception {
        try {
            warmUpTakesTheSlowFirstRequests();
        } catch (AssertionError e) {
            BusyMachine.rethrowUnlessBusy(e); // on a loaded machine a p99 bound of 100 ms at 100 req/s fails whatever the warm-up does
        }
    }

    private void warmUpTakesTheSlowFirstRequests() throws Exception {
        byte[] ok = "ok".getBytes(StandardCharsets.US_ASCII);
        java.util.concurrent.atomic.AtomicInteger served = new java.util.concurrent.atomic.AtomicInteger();
        try (TestServers.Running server = TestServers.start(ex -> {
            if (served.incrementAndGet() <= 6) {
                TestServers.pause(250);
            }
            TestServers.answer(ex, 200, ok);
        }, 1)) {
            SweepCommand sw = sweep(server.url());
            sw.load.warmup = Duration.ofSeconds(2);
            sw.maxRate = 200;
            sw.p99Bound = Duration.ofMillis(100);
            SweepCommand.Outcome o = sw.warmUpAndSweep();
            assertThat(served.get()).isGreaterThan(6);
            assertThat(o.steps().getFirst().pass()).as("the first step, at %s req/s", o.steps().getFirst().rate()).isTrue();
            assertThat(o.highestStable()).isGreaterThanOrEqualTo(100);
        }
    }

    private static SweepCommand sweep(String url) {
        SweepCommand sw = new SweepCommand();
        sw.target = new TargetOptions();
        sw.target.urls = List.of(url);
        sw.target.connections = 1;
        sw.target.timeout = Duration.ofSeconds(2);
        sw.target.keys = 1000;
        sw.target.valueSize = 0;
        sw.load = new LoadOptions();
        sw.load.workload = Workload.get;
        sw.load.distribution = KeyDistribution.Kind.uniform;
        sw.load.warmup = Duration.ZERO;
        sw.load.readRatio = 0.9;
        sw.load.rangeLength = 1;
        sw.load.spin = Duration.ofNanos(20_000);
        sw.p99Bound = Duration.ofMillis(10);
        sw.startRate = 100;
        sw.maxRate = 100_000;
        sw.stepDuration = Duration.ofSeconds(1);
        sw.stepWarmup = Duration.ofMillis(300);
        sw.precision = 0.1;
        sw.maxSteps = 4;
        return sw;
    }

    @Test
    void findsTheRateWhereTheServerStopsCoping() throws Exception {
        byte[] ok = "ok".getBytes(StandardCharsets.US_ASCII);
        try (TestServers.Running server = TestServers.start(ex -> {
            TestServers.pause(2);
            TestServers.answer(ex, 200, ok);
        }, 1)) {
            SweepCommand sw = sweep(server.url());
            sw.p99Bound = Duration.ofMillis(50);
            sw.maxSteps = 9;
            SweepCommand.Outcome o = sw.sweep();
            o.steps().forEach(s -> System.out.println(SweepCommand.row(s)));
            assertThat(o.steps().getFirst().rate()).isEqualTo(100);
            // The capacity is at most ~500 req/s, and lower on a loaded machine (a 2 ms sleep then
            // takes longer): the sweep must find a passing rate below it, and a failing one above
            // every passing one, whatever the machine did.
            assertThat(o.highestStable()).isGreaterThan(0).isLessThan(520);
            double lowestFail = o.steps().stream().filter(s -> !s.pass()).mapToDouble(SweepCommand.Step::rate)
                    .min().orElseThrow(() -> new AssertionError("the sweep never went past the capacity"));
            assertThat(o.highestStable()).isLessThan(lowestFail);
            assertThat(o.steps()).filteredOn(s -> s.rate() > 520).allMatch(s -> !s.pass());
            // it stopped because it bracketed the answer within the precision, or ran out of steps
            assertThat((lowestFail - o.highestStable()) / lowestFail <= sw.precision || o.steps().size() == sw.maxSteps).isTrue();
        }
    }

    /**
     * A sweep picks each step's rate and window itself (--start-rate, --step-duration), so the load
     * run's -R and -d would be options it takes and ignores: it refuses them as unknown, sending
     * nothing, and its help does not list them ('sweep -d 10s' must not run a sweep of 5 s steps).
     */
    @Test
    void sweepRefusesTheLoadRunsRateAndDuration() throws Exception {
        List<String> requests = new CopyOnWriteArrayList<>();
        try (TestServers.Running server = TestServers.start(TestServers.recording(requests, 200), 1)) {
            for (List<String> option : List.of(List.of("-d", "10s"), List.of("--rate", "500"))) {
                List<String> args = new ArrayList<>(List.of("sweep", "--url", server.url(), "-c", "1",
                        "--warmup", "0s", "--max-steps", "1", "--step-duration", "200ms", "--step-warmup", "0s"));
                args.addAll(option);
                BenchCli.Outcome o = bench(args.toArray(String[]::new));
                assertThat(o.exitCode()).as("%s: bad usage", option).isEqualTo(2);
                assertThat(o.stderr()).as("%s", option).startsWith("Unknown option").contains("'" + option.getFirst() + "'");

                // Placed before the subcommand, picocli takes it as bench's own, which sweep never reads.
                List<String> before = new ArrayList<>(option);
                before.addAll(args.subList(0, args.size() - option.size()));
                BenchCli.Outcome b = bench(before.toArray(String[]::new));
                assertThat(b.exitCode()).as("%s before sweep: bad usage", option).isEqualTo(2);
                assertThat(b.stderr()).as("%s before sweep", option).contains("is an option of 'bench' alone, not of 'bench sweep'");
            }
            assertThat(requests).isEmpty();
        }
        assertThat(bench("sweep", "--help").stdout()).contains("--step-duration=").doesNotContain("--duration=")
                .doesNotContain("--rate=");
        assertThat(bench("--help").stdout()).contains("--duration=<duration>").contains("--rate=<rate>");
    }

}
