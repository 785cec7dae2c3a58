package dht.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The point of the generator: a server that stalls 200 ms in every 2 s (10% of the time) must show
 * up in the percentiles. A request intended during a stall waits for its end, so its latency is
 * spread uniformly over (0, 200 ms]: about 10% of requests are slow, p95 is near 100 ms, p99 near
 * 180 ms, the maximum near 200 ms. A generator that measured from the actual send (coordinated
 * omission) would see one slow request per stall and report p99 of a fraction of a millisecond.
 */
class CoordinatedOmissionTest {
    private static final long PERIOD_NS = 2_000_000_000L;
    private static final long STALL_NS = 200_000_000L;

    @Test
    void stallsAreChargedToEveryRequestTheyDelayed() throws Exception {
        try {
            stallsCharged();
        } catch (AssertionError e) {
            BusyMachine.rethrowUnlessBusy(e); // a loaded machine adds stalls of its own (on one every request was over 50 ms)
        }
    }

    private void stallsCharged() throws Exception {
        long t0 = System.nanoTime();
        byte[] ok = "ok".getBytes(StandardCharsets.US_ASCII);
        try (TestServers.Running server = TestServers.start(ex -> {
            long phase = (System.nanoTime() - t0) % PERIOD_NS;
            if (phase < STALL_NS) {
                try {
                    Thread.sleep(Duration.ofNanos(STALL_NS - phase));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            TestServers.answer(ex, 200, ok);
        }, 1)) {
            KeyDistribution keys = KeyDistribution.of(KeyDistribution.Kind.uniform, 1000, 0);
            RequestFactory f = new RequestFactory(Workload.get, keys, 0, 0, 0, 1, null, null, 1);
            LoadSpec spec = new LoadSpec(List.of(Target.parse(server.url())), 1, 1, 200, Duration.ofMillis(500),
                    Duration.ofSeconds(6), Duration.ofSeconds(5), 20_000, f, -1, false, 1);
            RunResult r = new LoadGenerator(spec, null).run();
            Histogram h = r.stats().latency;
            System.out.printf("count %d p50 %.2f p90 %.2f p95 %.2f p99 %.2f max %.2f ms%n", h.getTotalCount(),
                    r.latencyMs(50), r.latencyMs(90), r.latencyMs(95), r.latencyMs(99), r.latencyMs(100));

            // Every intended request was sent and answered: the stall did not thin out the sample.
            assertThat(r.stats().completed).isBetween(1150L, 1201L);
            assertThat(r.stats().statusCounts[200]).isEqualTo(r.stats().completed);
            // Three stalls in the 6 s window: 10% of requests intended during them, half of those
            // waiting more than 100 ms. Only the lower bounds are tight: a loaded machine adds stalls
            // of its own, but cannot remove the ones the
            // server made. An uncorrected measurement fails them all: it sees one slow request per
            // stall (3 in 1,200, 0.25%) and reports p95 and p99 under a millisecond.
            double slowShare = (double) h.getCountBetweenValues(50_000_000L, Long.MAX_VALUE) / h.getTotalCount();
            assertThat(slowShare).as("share of requests over 50 ms (expected 7.5 percent)").isBetween(0.05, 0.5);
            assertThat(r.latencyMs(50)).as("p50 (ms), outside the stalls").isLessThan(50);
            assertThat(r.latencyMs(95)).as("p95 (ms), expected ~100").isGreaterThan(60.0);
            assertThat(r.latencyMs(99)).as("p99 (ms), expected ~180").isGreaterThan(150.0);
            assertThat(r.latencyMs(100)).as("max (ms), expected ~200").isBetween(185.0, 5000.0);

            // The timeline says when: 60 slots of 100 ms, the stalls' slots slow and 2 s (20 slots)
            // apart, the slots between them fast.
            Timeline t = r.stats().timeline;
            assertThat(t.slots()).isBetween(60, 64);
            List<Integer> slow = java.util.stream.IntStream.range(0, 60).filter(i -> t.worst(i) > 150_000_000L).boxed().toList();
            long fast = java.util.stream.IntStream.range(0, 60).filter(i -> t.worst(i) >= 0 && t.worst(i) < 50_000_000L).count();
            assertThat(slow).as("slots with a request over 150 ms").hasSizeGreaterThanOrEqualTo(3);
            assertThat(slow).as("a stall 2 s after another").anyMatch(i -> slow.contains(i + 20) || slow.contains(i + 19) || slow.contains(i + 21));
            assertThat(fast).as("slots with every request under 50 ms").isGreaterThanOrEqualTo(40);
        }
    }
}
