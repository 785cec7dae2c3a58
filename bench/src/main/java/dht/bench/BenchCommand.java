package dht.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code dht bench}: a constant-rate load test in the manner of wrk2 (latency measured from each
 * request's intended send time, so stalls are not hidden), with subcommands to fill a node, find
 * the highest rate that keeps p99 under a bound, plot runs, and regenerate the reports.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Constant-rate HTTP load test of dht nodes (wrk2 method, coordinated omission corrected).",
            "Prints a wrk2-shaped summary; with --out also writes summary.json, latency.hgrm and latency.png."},
        subcommands = {FillCommand.class, SweepCommand.class, PlotCommand.class, ReportCommand.class, FlameCommand.class,
            FloorCommand.class})
public final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    TargetOptions target = new TargetOptions();

    @Mixin
    LoadOptions load = new LoadOptions();

    // Here, not in LoadOptions: sweep picks each step's rate and window itself (--start-rate,
    // --step-duration), so there they would be options it takes and ignores.
    @Option(names = {"-R", "--rate"}, defaultValue = "1000",
            description = "Total requests per second, constant; 0 = closed loop, as fast as answers come (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = {"-d", "--duration"}, defaultValue = "30s", converter = Durations.Converter.class,
            description = "Measured window (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--out", description = "Directory for summary.txt, summary.json, latency.hgrm, latency.png and flame graphs.")
    Path out;

    @Option(names = "--profile", split = ",",
            description = "Record flame graphs from the nodes over the measured window: cpu, alloc, lock, wall, itimer, ctimer (needs --out).")
    List<String> profile = new ArrayList<>();

    @Option(names = "--title", description = "Name of the run in the summary and the plot.")
    String title;

    @Override
    public Integer call() throws Exception {
        try {
            if (rate < 0) {
                throw new BenchException("--rate must not be negative");
            }
            if (duration.isNegative() || duration.isZero()) {
                throw new BenchException("--duration must be positive");
            }
            LoadSpec s = load.spec(target, rate, load.warmup, duration, true);
            String name = title != null ? title : load.workload + " " + (s.openModel() ? (long) s.rate() + " req/s" : "max") + " "
                    + s.connections() + "c " + (s.pipeline() > 1 ? "pipeline " + s.pipeline() + " " : "")
                    + Durations.formatMillis(duration.toMillis());
            CompletableFuture<List<String>> profiles = null;
            if (!profile.isEmpty()) {
                if (out == null) {
                    throw new BenchException("--profile needs --out, where the flame graphs are saved");
                }
                profiles = new ProfileClient(profile, out).record(s.targets(), load.warmup.plusMillis(20), duration);
            }
            NodeAllocation allocation = NodeAllocation.startAfter(s.targets(), load.warmup);
            RunResult r = new LoadGenerator(s, System.err).run();
            String text = ResultWriter.text(r, name) + allocation.finish(r.stats().completed) + "\n";
            System.out.print(text);
            if (profiles != null) {
                profiles.join().forEach(System.err::println);
            }
            if (out != null) {
                ResultWriter.write(out, r, name, commandLine(), text);
                System.err.println("results in " + out.toAbsolutePath());
            }
            if (r.stats().completed == 0) return 1;
            if (r.stats().connectErrors > 0) {
                // A node that refused connections during the run was down for part of it: the
                // figures describe what it answered, not a steady run at the asked rate.
                System.err.printf(Locale.ROOT, "bench: %d connection attempt%s failed during the run (warm-up included; the"
                        + " lines above name the node): the figures above cover only what was answered (exit code 1)%n",
                        r.stats().connectErrors, r.stats().connectErrors == 1 ? "" : "s");
                return 1;
            }
            return 0;
        } catch (BenchException | IllegalArgumentException e) {
            return BenchException.report("bench", e);
        }
    }

    String commandLine() {
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        // Run through bin/dht, the arguments are the launcher's and begin with "bench" itself.
        if (!args.isEmpty() && args.getFirst().equals("bench")) args = args.subList(1, args.size());
        return "dht bench " + String.join(" ", args);
    }

    static Duration seconds(double s) {
        return Duration.ofNanos((long) (s * 1e9));
    }

    static List<String> list(String... s) {
        return Arrays.asList(s);
    }
}
