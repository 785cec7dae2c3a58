package dht.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code dht bench sweep}: the highest constant rate the service sustains with p99 under a bound.
 * Doubles the rate from --start-rate while runs pass, then bisects between the last pass and the
 * first failure until they are within --precision. A run passes when p99 is within the bound, the
 * answers reach 97% of the requested rate, and there are no socket errors and no 5xx.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true,
        description = "Find the highest rate with p99 under --p99 by raising then bisecting the rate in short runs.")
public final class SweepCommand implements Callable<Integer> {
    @Mixin
    TargetOptions target = new TargetOptions();

    @Mixin
    LoadOptions load = new LoadOptions();

    @Option(names = "--p99", defaultValue = "10ms", converter = Durations.Converter.class,
            description = "Bound on the 99th percentile latency (default: ${DEFAULT-VALUE}).")
    Duration p99Bound;

    @Option(names = "--start-rate", defaultValue = "1000", description = "First rate tried (default: ${DEFAULT-VALUE}).")
    double startRate;

    @Option(names = "--max-rate", defaultValue = "1000000", description = "Never try above this (default: ${DEFAULT-VALUE}).")
    double maxRate;

    @Option(names = "--step-duration", defaultValue = "5s", converter = Durations.Converter.class,
            description = "Measured window of each step (default: ${DEFAULT-VALUE}).")
    Duration stepDuration;

    @Option(names = "--step-warmup", defaultValue = "2s", converter = Durations.Converter.class,
            description = "Warmup of each step (default: ${DEFAULT-VALUE}).")
    Duration stepWarmup;

    @Option(names = "--precision", defaultValue = "0.05", description = "Stop bisecting when (fail-pass)/fail is below this (default: ${DEFAULT-VALUE}).")
    double precision;

    @Option(names = "--max-steps", defaultValue = "12", description = "At most this many runs (default: ${DEFAULT-VALUE}).")
    int maxSteps;

    @Option(names = "--out", description = "Directory for sweep.txt, sweep.json and each step's latency.hgrm.")
    Path out;

    /** One row of the table. */
    public record Step(double rate, double achieved, double p50, double p99, double p999, double max, long errors,
                       long status5xx, boolean pass) {
    }

    /** The outcome: the rows in the order tried and the highest passing rate (0 if none). */
    public record Outcome(List<Step> steps, double highestStable) {
    }

    @Override
    public Integer call() throws Exception {
        try {
            Outcome o = warmUpAndSweep();
            String table = table(o);
            System.out.print(table);
            if (out != null) {
                Files.createDirectories(out);
                Files.writeString(out.resolve("sweep.txt"), table);
                Files.writeString(out.resolve("sweep.json"), json(o));
            }
            return o.highestStable() > 0 ? 0 : 1;
        } catch (BenchException | IllegalArgumentException e) {
            return BenchException.report("bench sweep", e);
        }
    }

    /** What the command runs: the warm-up, then the sweep, its rows on stderr as each step ends. */
    Outcome warmUpAndSweep() throws InterruptedException, IOException {
        warmUp();
        System.err.println(header());
        return sweep();
    }

    /**
     * Closed-loop load for {@code --warmup} before the first step, not measured. Without it the first
     * step runs on a cold generator and a cold node (both still compiling) and can fail at a rate far
     * below capacity, and since a sweep only bisects down from a failure, it would report that rate.
     * ({@code bench report} warms up on its own and calls {@link #sweep()} directly.)
     */
    private void warmUp() throws InterruptedException, IOException {
        if (load.warmup.isZero()) return;
        System.err.printf(Locale.ROOT, "sweep: warm-up, %s of closed-loop load (not measured)%n",
                Durations.formatMillis(load.warmup.toMillis()));
        new LoadGenerator(load.spec(target, 0, Duration.ZERO, load.warmup, false), System.err).run();
    }

    public Outcome sweep() throws InterruptedException, IOException {
        if (startRate <= 0 || maxRate < startRate) {
            throw new BenchException("need 0 < --start-rate <= --max-rate");
        }
        List<Step> steps = new ArrayList<>();
        double pass = 0;
        double fail = Double.POSITIVE_INFINITY;
        double rate = startRate;
        for (int i = 0; i < maxSteps; i++) {
            LoadSpec s = load.spec(target, rate, stepWarmup, stepDuration, false);
            RunResult r = new LoadGenerator(s, System.err).run();
            Step step = measure(r, rate, p99Bound);
            boolean ok = step.pass();
            steps.add(step);
            System.err.println(row(step));
            if (out != null) {
                Path d = out.resolve(String.format(Locale.ROOT, "step-%02d-%.0f", i + 1, rate));
                ResultWriter.write(d, r, load.workload + " " + (long) rate + " req/s", "dht bench sweep (step)",
                        ResultWriter.text(r, load.workload + " " + (long) rate + " req/s"));
            }
            if (ok) {
                pass = Math.max(pass, rate);
            } else {
                fail = Math.min(fail, rate);
            }
            if (ok && pass >= maxRate) {
                break;
            }
            if (fail != Double.POSITIVE_INFINITY && (fail - pass) / fail <= precision) {
                break;
            }
            rate = fail == Double.POSITIVE_INFINITY ? Math.min(rate * 2, maxRate) : (pass + fail) / 2;
            if (pass == 0 && fail != Double.POSITIVE_INFINITY) {
                rate = fail / 2;
            }
            rate = Math.round(rate);
        }
        return new Outcome(steps, pass);
    }

    /**
     * A run at {@code rate} as a row, judged as every step is: it passes when p99 is within
     * {@code p99Bound}, the answers reach 97% of the rate, and there are no socket errors and no 5xx.
     */
    static Step measure(RunResult r, double rate, Duration p99Bound) {
        long s5xx = 0;
        for (int c = 500; c < 600; c++) {
            s5xx += r.stats().statusCounts[c];
        }
        double p99 = r.latencyMs(99);
        boolean ok = p99 <= p99Bound.toNanos() / 1e6 && r.requestsPerSecond() >= 0.97 * rate
                && r.errors() == 0 && s5xx == 0;
        return new Step(rate, r.requestsPerSecond(), r.latencyMs(50), p99, r.latencyMs(99.9), r.latencyMs(100),
                r.errors(), s5xx, ok);
    }

    private String table(Outcome o) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "sweep: %s, %d connections, p99 bound %s, steps of %s (+%s warmup)%n",
                load.workload, target.connections, Durations.formatMillis(p99Bound.toNanos() / 1e6),
                Durations.formatMillis(stepDuration.toMillis()), Durations.formatMillis(stepWarmup.toMillis())));
        b.append(header()).append('\n');
        for (Step s : o.steps()) {
            b.append(row(s)).append('\n');
        }
        b.append(String.format(Locale.ROOT, "highest stable rate: %.0f req/s%s%n", o.highestStable(),
                o.highestStable() >= maxRate ? " (--max-rate, where the sweep stops: the node may hold more)" : ""));
        return b.toString();
    }

    static String header() {
        return String.format(Locale.ROOT, "%10s %10s %10s %10s %10s %10s %7s %6s  %s",
                "rate", "achieved", "p50", "p99", "p99.9", "max", "errors", "5xx", "verdict");
    }

    static String row(Step s) {
        return String.format(Locale.ROOT, "%10.0f %10.0f %10s %10s %10s %10s %7d %6d  %s", s.rate(), s.achieved(),
                Durations.formatMillis(s.p50()), Durations.formatMillis(s.p99()), Durations.formatMillis(s.p999()),
                Durations.formatMillis(s.max()), s.errors(), s.status5xx(), s.pass() ? "pass" : "FAIL");
    }

    private String json(Outcome o) {
        StringBuilder j = new StringBuilder("{\n  \"p99_bound_ms\": ").append(JsonSummary.num(p99Bound.toNanos() / 1e6))
                .append(",\n  \"highest_stable_rate\": ").append(JsonSummary.num(o.highestStable())).append(",\n  \"steps\": [\n");
        for (int i = 0; i < o.steps().size(); i++) {
            Step s = o.steps().get(i);
            j.append(String.format(Locale.ROOT,
                    "    {\"rate\": %s, \"achieved\": %s, \"p50_ms\": %s, \"p99_ms\": %s, \"p999_ms\": %s, \"max_ms\": %s, \"errors\": %d, \"status_5xx\": %d, \"pass\": %b}%s%n",
                    JsonSummary.num(s.rate()), JsonSummary.num(s.achieved()), JsonSummary.num(s.p50()), JsonSummary.num(s.p99()),
                    JsonSummary.num(s.p999()), JsonSummary.num(s.max()), s.errors(), s.status5xx(), s.pass(),
                    i + 1 < o.steps().size() ? "," : ""));
        }
        return j.append("  ]\n}\n").toString();
    }
}
