package dht.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code dht bench fill}: PUTs keys k(start) .. k(start+count-1), each exactly once, as fast as the
 * node answers, with at most --connections requests in flight; prints rate and ETA each second.
 */
@Command(name = "fill", mixinStandardHelpOptions = true,
        description = {"Load N keys as fast as the node takes them (bounded concurrency), with a progress line.",
            "Writes k(start) .. k(start+count-1) in order, each once (no --distribution: that is for load runs)."})
public final class FillCommand implements Callable<Integer> {
    @Mixin
    TargetOptions target = new TargetOptions();

    @Option(names = {"-n", "--count"}, description = "Keys to write (default: --keys).")
    Long count;

    @Option(names = "--start", defaultValue = "0", description = "First key index (default: ${DEFAULT-VALUE}).")
    long start;

    /** The last fill's outcome, for callers that fill programmatically (bench report). */
    RunResult lastResult;

    @Override
    public Integer call() throws Exception {
        try {
            target.validate();
            long n = count != null ? count : target.keys;
            if (n <= 0) throw new BenchException("--count must be at least 1, not " + n);
            if (start < 0 || start + n - 1 > Keys.MAX_INDEX) {
                throw new BenchException("--count and --start must describe keys within 0.." + Keys.MAX_INDEX);
            }
            KeyDistribution keys = KeyDistribution.of(KeyDistribution.Kind.sequential, Keys.MAX_INDEX + 1, start);
            RequestFactory f = new RequestFactory(Workload.put, keys, target.valueSize, 0, 0, 1, target.ack, target.from, target.seed);
            LoadSpec s = new LoadSpec(target.targets(), target.connections, target.threads(), 0, Duration.ZERO, null,
                    target.timeout, 0, f, n, true, target.seed, -1, target.pipeline);
            boolean tty = System.console() != null;
            System.err.printf(Locale.ROOT, "filling %,d keys (k%010d..) of %d bytes over %d connection%s to %s%n",
                    n, start, target.valueSize, s.connections(), s.connections() == 1 ? "" : "s", target.urls);
            RunResult r = new LoadGenerator(s, System.err).run((answered, secs) -> {
                double rate = answered / Math.max(secs, 1e-9);
                long left = n - answered;
                String eta = rate > 0 ? clock(left / rate) : "?";
                System.err.printf(Locale.ROOT, "%s  %,d / %,d keys (%.1f%%)  %,.0f keys/s  ETA %s%s",
                        tty ? "\r" : "", answered, n, 100.0 * answered / n, rate, eta, tty ? "  " : "\n");
            });
            if (tty) {
                System.err.println();
            }
            lastResult = r;
            ConnectionStats st = r.stats();
            long created = st.statusCounts[201];
            System.out.printf(Locale.ROOT, "filled %,d keys in %.1fs: %,.0f keys/s; 201 Created: %,d; other statuses: %d; errors: %d%n",
                    st.completed, r.elapsedSeconds(), r.requestsPerSecond(), created, st.completed - created, r.errors());
            System.out.printf(Locale.ROOT, "PUT latency (closed loop): p50 %s  p99 %s  max %s%n",
                    Durations.formatMillis(r.latencyMs(50)), Durations.formatMillis(r.latencyMs(99)),
                    Durations.formatMillis(r.latencyMs(100)));
            return created == n ? 0 : 1;
        } catch (BenchException | IllegalArgumentException e) {
            return BenchException.report("bench fill", e);
        }
    }

    static String clock(double seconds) {
        long s = (long) Math.ceil(seconds);
        return s >= 3600 ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
