package dht.bench;

import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The shape of a load test: shared by bench and sweep. The rate and the measured window are bench's
 * own options: sweep sets them for each step.
 */
public final class LoadOptions {
    @Option(names = {"-w", "--workload"}, defaultValue = "get",
            description = "put | get | mixed | delete | range (default: ${DEFAULT-VALUE}).")
    Workload workload;

    // Here, not in TargetOptions: fill writes its range k(start)..k(start+count-1) in order, each key
    // once, so a distribution would be an option it takes and ignores.
    @Option(names = "--distribution", defaultValue = "uniform",
            description = "Key distribution: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    KeyDistribution.Kind distribution;

    // Where a sequential run begins: a run that followed another on the same node from the same
    // start would overwrite its keys instead of writing new ones, so scripts give each run its own range.
    @Option(names = "--start", defaultValue = "0",
            description = "sequential: the first key index; the run writes k(start), k(start+1), ... (default: ${DEFAULT-VALUE}).")
    long start;

    @Option(names = "--warmup", defaultValue = "5s", converter = Durations.Converter.class,
            description = "Load before the measured window (sweep: closed loop, before the first step), not recorded "
                + "(default: ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = "--miss-ratio", defaultValue = "0", description = "get: share of keys outside the key space (default: ${DEFAULT-VALUE}).")
    double missRatio;

    @Option(names = "--read-ratio", defaultValue = "0.9", description = "mixed: share of gets, the rest puts (default: ${DEFAULT-VALUE}).")
    double readRatio;

    @Option(names = "--range-length", defaultValue = "100", description = "range: keys per scan (default: ${DEFAULT-VALUE}).")
    long rangeLength;

    @Option(names = "--spin", defaultValue = "20us", converter = Durations.Converter.class,
            description = {"Spin (rather than sleep) this close to each intended send time, plus the timer lateness "
                + "observed recently when a generator thread sends at most 5000 req/s (default: ${DEFAULT-VALUE})."})
    Duration spin;

    @Option(names = "--timer-slack", converter = Durations.Converter.class,
            description = {"Round send timers up to a grid of this size and send without spinning: sends due "
                + "close together share one wake-up, each still measured from its intended time (default: 100us "
                + "when a generator thread sends more than 5000 req/s, else 0: precise timers and spinning)."})
    Duration timerSlack;

    void validate() {
        if (missRatio < 0 || missRatio > 1 || readRatio < 0 || readRatio > 1) {
            throw new BenchException("--miss-ratio and --read-ratio must be between 0 and 1");
        }
        if (start < 0) {
            throw new BenchException("--start must not be negative");
        }
        if (start > 0 && distribution != KeyDistribution.Kind.sequential) {
            throw new BenchException("--start is for --distribution sequential");
        }
        if (rangeLength < 1) {
            throw new BenchException("--range-length must be at least 1");
        }
        if (timerSlack != null && timerSlack.isNegative()) {
            throw new BenchException("--timer-slack must not be negative");
        }
    }

    LoadSpec spec(TargetOptions t, double rate, Duration warmup, Duration duration, boolean progress) {
        t.validate();
        validate();
        if (start >= t.keys) {
            throw new BenchException("--start must be below --keys (" + t.keys + ")");
        }
        KeyDistribution keys = KeyDistribution.of(distribution, t.keys, start);
        RequestFactory f = new RequestFactory(workload, keys, t.valueSize, missRatio, readRatio, rangeLength,
                t.ack, t.from, t.seed);
        return new LoadSpec(t.targets(), t.connections, t.threads(), rate, warmup, duration, t.timeout,
                spin.toNanos(), f, -1, progress, t.seed, timerSlack == null ? -1 : timerSlack.toNanos(), t.pipeline);
    }
}
