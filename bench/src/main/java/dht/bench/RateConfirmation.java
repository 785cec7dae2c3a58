package dht.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The check a report's rate rests on: a run as long as the report's, without profilers, at the
 * sweep's highest stable rate, judged as a sweep step is ({@link SweepCommand#measure}); when it
 * does not hold, again at {@link #FRACTIONS} of it. A sweep step lasts seconds, so a rate that
 * passed one may still not hold for longer (compaction, collections, other load on the machine):
 * the report quotes the rate that held, not the sweep's alone.
 */
final class RateConfirmation {
    /** The rates tried, as fractions of the sweep's, in order; the first that holds ends the check. */
    static final double[] FRACTIONS = {1.0, 0.85, 0.7};

    /** Every run made, in order; the last is the one the report quotes. */
    record Outcome(List<SweepCommand.Step> attempts, RunResult lastRun) {
        boolean held() {
            return attempts.getLast().pass();
        }

        /** The rate that held, or, when none did, the lowest tried. */
        double rate() {
            return attempts.getLast().rate();
        }

        /** The attempts as a sweep-style table. */
        String table() {
            StringBuilder b = new StringBuilder(SweepCommand.header()).append('\n');
            for (SweepCommand.Step s : attempts) b.append(SweepCommand.row(s)).append('\n');
            return b.append(held() ? String.format(Locale.ROOT, "held: %.0f req/s%n", rate())
                    : "held: none of these rates\n").toString();
        }
    }

    private RateConfirmation() {
    }

    static Outcome confirm(LoadOptions load, TargetOptions target, double sweepRate, Duration warmup, Duration duration,
                           Duration p99Bound) throws IOException, InterruptedException {
        List<SweepCommand.Step> attempts = new ArrayList<>();
        RunResult last = null;
        for (double fraction : FRACTIONS) {
            double rate = Math.round(sweepRate * fraction);
            System.err.printf(Locale.ROOT, "confirm: %.0f req/s (%.0f%% of the sweep's) for %d s, unprofiled%n",
                    rate, 100 * fraction, duration.toSeconds());
            last = new LoadGenerator(load.spec(target, rate, warmup, duration, false), System.err).run();
            SweepCommand.Step step = SweepCommand.measure(last, rate, p99Bound);
            attempts.add(step);
            System.err.println(SweepCommand.row(step));
            if (step.pass()) break;
        }
        return new Outcome(List.copyOf(attempts), last);
    }
}
