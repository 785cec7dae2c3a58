package dht.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The generator against real sockets: what it sends, how many, and how it counts answers. */
class LoadGeneratorTest {

    @Test
    void fillWritesEachKeyExactlyOnceWithItsValue() throws Exception {
        Map<String, Integer> puts = new ConcurrentHashMap<>();
        AtomicInteger duplicates = new AtomicInteger();
        try (TestServers.Running server = TestServers.start(ex -> {
            String id = ex.getRequestURI().getQuery().replaceFirst("^id=", "");
            byte[] body = ex.getRequestBody().readAllBytes();
            if (!ex.getRequestMethod().equals("PUT") || puts.put(id, body.length) != null) {
                duplicates.incrementAndGet();
            }
            TestServers.answer(ex, 201, new byte[0]);
        }, 4)) {
            KeyDistribution keys = KeyDistribution.of(KeyDistribution.Kind.sequential, Keys.MAX_INDEX + 1, 0);
            RequestFactory f = new RequestFactory(Workload.put, keys, 37, 0, 0, 1, null, null, 1);
            LoadSpec spec = new LoadSpec(List.of(Target.parse(server.url())), 4, 2, 0, Duration.ZERO, null,
                    Duration.ofSeconds(5), 0, f, 500, false, 1);
            RunResult r = new LoadGenerator(spec, null).run();
            assertThat(r.stats().completed).isEqualTo(500);
            assertThat(r.stats().statusCounts[201]).isEqualTo(500);
            assertThat(duplicates.get()).isZero();
            assertThat(puts).hasSize(500).containsKeys(Keys.key(0), Keys.key(499)).doesNotContainKey(Keys.key(500));
            assertThat(puts.values()).allMatch(len -> len == 37);
        }
    }

    @Test
    void constantRateSendsTheScheduledNumberAndCountsStatuses() throws Exception {
        ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
        try (TestServers.Running server = TestServers.start(ex -> {
            seen.add(ex.getRequestMethod() + " " + ex.getRequestURI());
            boolean hit = ex.getRequestURI().getQuery().compareTo("id=k0000000100") < 0;
            TestServers.answer(ex, ex.getRequestMethod().equals("PUT") ? 201 : hit ? 200 : 404,
                    "v".getBytes(StandardCharsets.US_ASCII));
        }, 2)) {
            KeyDistribution keys = KeyDistribution.of(KeyDistribution.Kind.uniform, 100, 0);
            RequestFactory f = new RequestFactory(Workload.mixed, keys, 10, 0.5, 0.8, 1, 2, 3, 1);
            LoadSpec spec = new LoadSpec(List.of(Target.parse(server.url())), 3, 2, 300, Duration.ofMillis(300),
                    Duration.ofSeconds(2), Duration.ofSeconds(5), 20_000, f, -1, false, 1);
            RunResult r = new LoadGenerator(spec, null).run();
            // 300 req/s for 2 s measured
            assertThat(r.stats().due).isEqualTo(600);
            assertThat(r.stats().completed).isEqualTo(600);
            long puts = r.stats().statusCounts[201];
            long hits = r.stats().statusCounts[200];
            long misses = r.stats().statusCounts[404];
            assertThat(puts + hits + misses).isEqualTo(600);
            // 20% puts; of the 80% gets, half miss
            assertThat(puts).isBetween(60L, 180L);
            assertThat(misses).isBetween(160L, 320L);
            assertThat(seen).allMatch(s -> s.contains("&ack=2&from=3"));
            assertThat(r.non2xx()).isEqualTo(misses);
        }
    }

    @Test
    void aWarmUpBacklogSpillingIntoTheMeasuredWindowIsFlagged() throws Exception {
        // Slow only for the first requests, like a cold JVM: counted, not timed from the test's
        // start, so a slow start of the run on a loaded machine cannot skip the slow phase.
        java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();
        try (TestServers.Running server = TestServers.start(ex -> {
            if (seen.getAndIncrement() < 4) {
                TestServers.pause(900);
            }
            TestServers.answer(ex, 200, "v".getBytes(StandardCharsets.US_ASCII));
        }, 4)) {
            KeyDistribution keys = KeyDistribution.of(KeyDistribution.Kind.uniform, 100, 0);
            RequestFactory f = new RequestFactory(Workload.get, keys, 10, 0, 0, 1, null, null, 1);
            LoadSpec spec = new LoadSpec(List.of(Target.parse(server.url())), 2, 1, 100, Duration.ofMillis(400),
                    Duration.ofSeconds(1), Duration.ofSeconds(5), 20_000, f, -1, false, 1);
            RunResult r = new LoadGenerator(spec, null).run();
            // the window opened at 0.4 s; the connections were held until about 0.9 s
            assertThat(r.stats().windowOpenLag).isGreaterThan(TextSummary.WARM_UP_BACKLOG_NANOS);
            assertThat(ResultWriter.text(r, "t")).contains("WARNING: the measured window opened")
                    .contains("use a longer --warmup");
        }
    }

    /**
     * A server slower than the rate: the sends the run never reached are still due (else "sent
     * 100%" would be true of any run), and Requests/sec is over
     * the time the answers took, not the window alone (which overstated it by the drain, here 3 s).
     */
    @Test
    void aRateTheServerCannotKeepUpWithIsReportedAsNotSustained() throws Exception {
        try (TestServers.Running server = TestServers.start(ex -> {
            TestServers.pause(50); // 20 answers/s on one connection
            TestServers.answer(ex, 200, "v".getBytes(StandardCharsets.US_ASCII));
        }, 1)) {
            RunResult r = getsAt200PerSecond(server, Duration.ofSeconds(3));
            assertThat(r.stats().due).as("intended in the 1 s window at 200/s").isBetween(199L, 201L);
            assertThat(r.stats().sent).as("sent: about 80 in the 4 s the run lasted").isLessThan(100);
            assertThat(r.requestsPerSecond()).as("about 20/s, not the window's count over 1 s").isLessThan(25);
            assertThat(ResultWriter.text(r, "t")).contains("were never sent").contains("this rate was not sustained")
                    .contains("after its end");
        }
    }

    /** The last answers' ordinary latency does not stretch the window; a long drain does, all of it. */
    @Test
    void onlyALongDrainCountsInTheWindow() {
        long second = 1_000_000_000L;
        assertThat(LoadGenerator.drainCounted(5 * second, 150_000_000L)).as("one slow final answer").isZero();
        assertThat(LoadGenerator.drainCounted(300 * second, 2 * second)).as("under 1% of a long window").isZero();
        assertThat(LoadGenerator.drainCounted(4 * second, 10 * second)).isEqualTo(10 * second);
        assertThat(LoadGenerator.drainCounted(5 * second, -3)).isZero();
    }

    @Test
    void rangeRequestsAskForRangeLengthKeys() throws Exception {
        ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
        try (TestServers.Running server = TestServers.start(ex -> {
            seen.add(ex.getRequestURI().toString());
            TestServers.answer(ex, 200, "k\nv".getBytes(StandardCharsets.US_ASCII));
        }, 1)) {
            KeyDistribution keys = KeyDistribution.of(KeyDistribution.Kind.sequential, 1000, 0);
            RequestFactory f = new RequestFactory(Workload.range, keys, 0, 0, 0, 25, null, null, 1);
            LoadSpec spec = new LoadSpec(List.of(Target.parse(server.url())), 1, 1, 0, Duration.ZERO, null,
                    Duration.ofSeconds(5), 0, f, 3, false, 1);
            new LoadGenerator(spec, null).run();
            assertThat(seen).containsExactly("/v0/entities?start=k0000000000&end=k0000000025",
                    "/v0/entities?start=k0000000001&end=k0000000026", "/v0/entities?start=k0000000002&end=k0000000027");
        }
    }

    /** GETs of 100 keys over one connection at 200/s for a 1 s window with no warm-up, answers awaited up to {@code timeout}. */
    private static RunResult getsAt200PerSecond(TestServers.Running server, Duration timeout) throws Exception {
        KeyDistribution keys = KeyDistribution.of(KeyDistribution.Kind.uniform, 100, 0);
        RequestFactory f = new RequestFactory(Workload.get, keys, 0, 0, 0, 1, null, null, 1);
        LoadSpec spec = new LoadSpec(List.of(Target.parse(server.url())), 1, 1, 200, Duration.ZERO,
                Duration.ofSeconds(1), timeout, 20_000, f, -1, false, 1);
        return new LoadGenerator(spec, null).run();
    }

    @Test
    void reconnectsWhenTheServerClosesTheConnection() throws Exception {
        AtomicInteger n = new AtomicInteger();
        try (TestServers.Running server = TestServers.start(ex -> {
            if (n.incrementAndGet() % 5 == 0) {
                ex.getResponseHeaders().add("Connection", "close");
            }
            TestServers.answer(ex, 200, "v".getBytes(StandardCharsets.US_ASCII));
        }, 1)) {
            RunResult r = getsAt200PerSecond(server, Duration.ofSeconds(5));
            // Every request sent is answered, across many closes. Not all 200 due: on a busy 2-core
            // machine the window ended with some never sent (145 of 200 answered, no error, 1.3 s).
            assertThat(r.stats().sent).as("sent: at least ten closes of the connection").isGreaterThanOrEqualTo(50);
            assertThat(r.stats().completed).isEqualTo(r.stats().sent);
            assertThat(r.errors()).isZero();
        }
    }

    @Test
    void anUnreachableTargetFailsFastWithItsUrl() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        KeyDistribution keys = KeyDistribution.of(KeyDistribution.Kind.uniform, 100, 0);
        RequestFactory f = new RequestFactory(Workload.get, keys, 0, 0, 0, 1, null, null, 1);
        LoadSpec spec = new LoadSpec(List.of(Target.parse("http://127.0.0.1:" + port)), 1, 1, 100, Duration.ZERO,
                Duration.ofSeconds(1), Duration.ofSeconds(1), 0, f, -1, false, 1);
        assertThatThrownBy(() -> new LoadGenerator(spec, null).run())
                .isInstanceOf(BenchException.class).hasMessageContaining("127.0.0.1:" + port);
    }
}
