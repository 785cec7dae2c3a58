package dht.bench;

import java.io.PrintStream;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Prints a run in wrk2's shape, so that people who read wrk2 output can read this one: thread
 * stats, the latency distribution, the detailed percentile spectrum (HdrHistogram's own format,
 * milliseconds), requests/s and transfer/s, then what wrk2 does not say: errors by status code
 * and how closely the generator kept to the requested rate.
 */
public final class TextSummary {
    static final long LAG_WARNING_NS = 1_000_000;
    /** Lateness of the window's first sends that is no scheduling hiccup (those stay below 20 ms here). */
    static final long WARM_UP_BACKLOG_NANOS = 50_000_000;
    private static final double[] PERCENTILES = {50, 75, 90, 99, 99.9, 99.99, 99.999, 100};

    private TextSummary() {
    }

    private static String slackNote(long slackNanos) {
        return slackNanos == 0 ? "" : "; send timers on a " + Durations.formatMillis(slackNanos / 1e6) + " grid";
    }

    public static void print(RunResult r, String title, PrintStream out) {
        LoadSpec spec = r.spec();
        ConnectionStats s = r.stats();
        Histogram h = s.latency;
        out.printf(Locale.ROOT, "Running %s test @ %s%n", title, spec.targets().getFirst().url()
                + (spec.targets().size() > 1 ? " (+" + (spec.targets().size() - 1) + " more, round-robin by connection)" : ""));
        out.printf(Locale.ROOT, "  %d threads and %d connections%s (%s), workload %s, %s%n",
                r.reqPerSecByThread().size(), spec.connections(),
                spec.pipeline() > 1 ? ", pipelining up to " + spec.pipeline() + " requests on each" : "",
                r.transport(), spec.requests().workload(),
                spec.openModel() ? String.format(Locale.ROOT, "constant rate %.0f req/s (latency from intended send time%s)",
                        spec.rate(), slackNote(LoadGenerator.timerSlackNanos(spec)))
                        : "closed loop (latency from actual send time)");
        out.println("  Thread Stats   Avg      Stdev     Max   +/- Stdev");
        double mean = h.getMean() / 1e6;
        double sd = h.getStdDeviation() / 1e6;
        double within = h.getTotalCount() == 0 ? 0 : 100.0 * h.getCountBetweenValues(
                (long) Math.max(0, h.getMean() - h.getStdDeviation()), (long) (h.getMean() + h.getStdDeviation()))
                / h.getTotalCount();
        out.printf(Locale.ROOT, "    Latency %9s %9s %9s %8.2f%%%n", Durations.formatMillis(mean),
                Durations.formatMillis(sd), Durations.formatMillis(h.getMaxValue() / 1e6), within);
        double[] all = r.reqPerSecByThread().stream().flatMapToDouble(java.util.Arrays::stream).toArray();
        double rm = meanOf(all);
        double rs = stdevOf(all, rm);
        double rmax = java.util.Arrays.stream(all).max().orElse(0);
        double rwithin = all.length == 0 ? 0 : 100.0 * java.util.Arrays.stream(all).filter(v -> Math.abs(v - rm) <= rs).count() / all.length;
        out.printf(Locale.ROOT, "    Req/Sec %9s %9s %9s %8.2f%%%n", count(rm), count(rs), count(rmax), rwithin);
        out.println("  Latency Distribution (HdrHistogram - Recorded Latency)");
        for (double p : PERCENTILES) {
            out.printf(Locale.ROOT, " %7.3f%% %9s%n", p, Durations.formatMillis(h.getValueAtPercentile(p) / 1e6));
        }
        out.println();
        out.println("  Detailed Percentile spectrum:");
        h.outputPercentileDistribution(out, 5, 1e6);
        out.println("----------------------------------------------------------");
        out.printf(Locale.ROOT, "  %d requests in %s, %s read%n", s.completed,
                Durations.formatMillis(r.elapsedSeconds() * 1000), bytes(s.bytesRead));
        if (r.errors() > 0) {
            out.printf(Locale.ROOT, "  Socket errors: connect %d, read %d, write %d, timeout %d%n",
                    s.connectErrors, s.readErrors, s.writeErrors, s.timeouts);
        }
        StringBuilder codes = new StringBuilder();
        for (int c = 0; c < s.statusCounts.length; c++) {
            if (s.statusCounts[c] > 0) {
                codes.append(' ').append(c).append(": ").append(s.statusCounts[c]).append(',');
            }
        }
        if (!codes.isEmpty()) {
            codes.setLength(codes.length() - 1);
        }
        out.printf(Locale.ROOT, "  Status codes:%s%n", codes);
        long found = s.statusCounts[200];
        long missing = s.statusCounts[404];
        if (spec.requests().workload() == Workload.get && missing > found && spec.requests().missRatio() < 0.5) {
            // Measuring misses is another experiment than the one asked for: a bench run reads keys
            // 0..--keys, and a fill smaller than that leaves most of them absent.
            out.println("WARNING: most GETs found no value (404): fill the keys this run reads first"
                    + " (bench fill --count N, with N this run's --keys).");
        }
        if (r.non2xx() > 0) {
            out.printf(Locale.ROOT, "  Non-2xx or 3xx responses: %d%n", r.non2xx());
        }
        out.printf(Locale.ROOT, "Requests/sec: %12.2f%n", r.requestsPerSecond());
        out.printf(Locale.ROOT, "Transfer/sec: %12s%n", bytes(r.elapsedSeconds() > 0 ? s.bytesRead / r.elapsedSeconds() : 0));
        if (spec.openModel()) {
            double requested = spec.rate();
            out.printf(Locale.ROOT, "Generator: requested %.0f req/s, due %d, sent %d (%.1f%%), answered %d (%.1f%% of the rate)%n",
                    requested, s.due, s.sent, pct(s.sent, s.due), s.completed, 100.0 * r.requestsPerSecond() / requested);
            out.printf(Locale.ROOT, "Generator send lag (on-time sends): p50 %s, p99 %s, max %s%n",
                    Durations.formatMillis(s.sendLag.getValueAtPercentile(50) / 1e6),
                    Durations.formatMillis(s.sendLag.getValueAtPercentile(99) / 1e6),
                    Durations.formatMillis(s.sendLag.getMaxValue() / 1e6));
            if (s.sent < s.due) {
                out.printf(Locale.ROOT, "WARNING: %d of the %d requests intended in the measured window were never sent"
                        + " (the server did not keep up with the rate, or connections were down): their latencies are"
                        + " missing from the percentiles above, and this rate was not sustained.%n", s.due - s.sent, s.due);
            }
            double window = spec.duration() == null ? 0 : spec.duration().toNanos() / 1e9;
            if (window > 0 && r.elapsedSeconds() > window + 0.5) { // stretched by a long drain (LoadGenerator.drainCounted)
                out.printf(Locale.ROOT, "WARNING: the window's last answers came %s after its end (the server answered"
                        + " slower than the rate): Requests/sec is over those %s.%n",
                        Durations.formatMillis((r.elapsedSeconds() - window) * 1000),
                        Durations.formatMillis(r.elapsedSeconds() * 1000));
            }
            if (s.windowOpenLag > WARM_UP_BACKLOG_NANOS) {
                out.printf(Locale.ROOT, "WARNING: the measured window opened %s behind schedule: the warm-up's backlog is"
                        + " charged to the first measured requests (a fresh generator JVM needs seconds to reach a high rate);"
                        + " use a longer --warmup.%n",
                        Durations.formatMillis(s.windowOpenLag / 1e6));
            }
            if (s.sendLag.getValueAtPercentile(99) > LAG_WARNING_NS) {
                out.println("WARNING: the generator itself sent late (send lag p99 above 1 ms): the machine is overloaded or the"
                        + " generator is short of CPU, and the latencies above include that delay.");
            }
        }
    }

    static double pct(long a, long b) {
        return b == 0 ? 0 : 100.0 * a / b;
    }

    static double meanOf(double[] v) {
        return v.length == 0 ? 0 : java.util.Arrays.stream(v).sum() / v.length;
    }

    static double stdevOf(double[] v, double mean) {
        if (v.length < 2) {
            return 0;
        }
        double ss = 0;
        for (double x : v) {
            ss += (x - mean) * (x - mean);
        }
        return Math.sqrt(ss / (v.length - 1));
    }

    private static String count(double v) {
        return v >= 1000 ? String.format(Locale.ROOT, "%.2fk", v / 1000) : String.format(Locale.ROOT, "%.2f", v);
    }

    static String bytes(double b) {
        if (b >= 1 << 30) {
            return String.format(Locale.ROOT, "%.2fGB", b / (1 << 30));
        }
        if (b >= 1 << 20) {
            return String.format(Locale.ROOT, "%.2fMB", b / (1 << 20));
        }
        if (b >= 1 << 10) {
            return String.format(Locale.ROOT, "%.2fKB", b / (1 << 10));
        }
        return String.format(Locale.ROOT, "%.0fB", b);
    }
}
