package dht.node.metrics;

import dht.node.http.RequestMeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * {@code dht_http_requests_seconds{op,status}}: every routed request's latency by operation and
 * status code, with a percentile histogram; and {@code dht_quorum_outcomes_total{op,outcome}}:
 * for GET, PUT and DELETE, whether the quorum was met ({@code ok}, any 2xx or 404), timed out
 * ({@code 504}) or was refused as overloaded ({@code 503}). Meters are made on first use of a
 * pair and then taken from an array, so a request costs one {@link Timer#record} and no lookup;
 * the quorum counters are made up front and only read after construction.
 */
final class HttpRequestMetrics implements RequestMeter {
    static final Duration MIN_EXPECTED = Duration.ofNanos(50_000);
    static final Duration MAX_EXPECTED = Duration.ofSeconds(10);
    private static final int CODES = 600;

    private final MeterRegistry registry;
    /** By {@code op.ordinal() * CODES + status}; made on first use, published safely to every event loop. */
    private final AtomicReferenceArray<Timer> timers = new AtomicReferenceArray<>(Operation.values().length * CODES);
    private final Counter[][] quorum = new Counter[Operation.values().length][3];

    HttpRequestMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (Operation op : new Operation[] {Operation.GET, Operation.PUT, Operation.DELETE}) {
            for (String outcome : new String[] {"ok", "504", "503"}) {
                quorum[op.ordinal()][outcomeIndex(outcome)] = Counter.builder("quorum.outcomes")
                        .description("Quorum requests by outcome: ok (2xx or 404), 504 (too few replicas), 503 (overloaded)")
                        .tag("op", op.label()).tag("outcome", outcome).register(registry);
            }
        }
    }

    @Override
    public void answered(Operation op, int status, long nanos) {
        int code = status > 0 && status < CODES ? status : 0;
        int i = op.ordinal() * CODES + code;
        Timer t = timers.get(i);
        if (t == null) {
            t = timer(op, code); // two loops racing get the same meter: register returns the one registered
            timers.set(i, t);
        }
        t.record(nanos, TimeUnit.NANOSECONDS);
        Counter[] q = quorum[op.ordinal()];
        if (q[0] != null) {
            int outcome = status == 504 ? 1 : status == 503 ? 2 : (status / 100 == 2 || status == 404) ? 0 : -1;
            if (outcome >= 0) q[outcome].increment();
        }
    }

    private Timer timer(Operation op, int code) {
        return Timer.builder("http.requests")
                .description("Client and internal requests by operation and status, from dispatch to the answer ready")
                .tag("op", op.label())
                .tag("status", Integer.toString(code))
                .publishPercentileHistogram()
                .minimumExpectedValue(MIN_EXPECTED)
                .maximumExpectedValue(MAX_EXPECTED)
                .register(registry);
    }

    private static int outcomeIndex(String outcome) {
        return switch (outcome) {
            case "ok" -> 0;
            case "504" -> 1;
            default -> 2;
        };
    }
}
