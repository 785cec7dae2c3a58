package dht.bench;

import java.util.Locale;
import org.HdrHistogram.Histogram;

/** The machine-readable summary of a run (summary.json): flat, stable field names, ms for latency. */
public final class JsonSummary {
    private static final double[] PERCENTILES = {50, 75, 90, 99, 99.9, 99.99, 99.999, 100};

    private JsonSummary() {
    }

    public static String of(RunResult r, String command) {
        LoadSpec spec = r.spec();
        ConnectionStats s = r.stats();
        Histogram h = s.latency;
        StringBuilder j = new StringBuilder("{\n");
        field(j, "command", quote(command));
        field(j, "started_at", quote(r.startedAt().toString()));
        StringBuilder urls = new StringBuilder("[");
        for (Target t : spec.targets()) {
            urls.append(urls.length() > 1 ? ", " : "").append(quote(t.url()));
        }
        field(j, "urls", urls.append(']').toString());
        field(j, "workload", quote(spec.requests().workload().name()));
        field(j, "mode", quote(spec.openModel() ? "constant-rate" : "closed-loop"));
        field(j, "requested_rate", num(spec.rate()));
        field(j, "connections", Integer.toString(spec.connections()));
        field(j, "pipeline", Integer.toString(spec.pipeline()));
        field(j, "threads", Integer.toString(r.reqPerSecByThread().size()));
        field(j, "warmup_s", num(spec.warmup().toNanos() / 1e9));
        field(j, "duration_s", num(r.elapsedSeconds()));
        field(j, "requests", Long.toString(s.completed));
        field(j, "requests_per_sec", num(r.requestsPerSecond()));
        field(j, "bytes_read", Long.toString(s.bytesRead));
        field(j, "due", Long.toString(s.due));
        field(j, "sent", Long.toString(s.sent));
        StringBuilder lat = new StringBuilder("{");
        lat.append("\"mean\": ").append(num(h.getMean() / 1e6)).append(", \"stdev\": ").append(num(h.getStdDeviation() / 1e6))
                .append(", \"max\": ").append(num(h.getMaxValue() / 1e6));
        for (double p : PERCENTILES) {
            lat.append(", \"p").append(p == 100 ? "100" : String.valueOf(p).replaceAll("\\.0$", "")).append("\": ")
                    .append(num(h.getValueAtPercentile(p) / 1e6));
        }
        field(j, "latency_ms", lat.append('}').toString());
        field(j, "send_lag_ms", "{\"p50\": " + num(s.sendLag.getValueAtPercentile(50) / 1e6) + ", \"p99\": "
                + num(s.sendLag.getValueAtPercentile(99) / 1e6) + ", \"max\": " + num(s.sendLag.getMaxValue() / 1e6) + "}");
        field(j, "window_open_lag_ms", num(Math.max(0, s.windowOpenLag) / 1e6));
        field(j, "timer_slack_ms", num(LoadGenerator.timerSlackNanos(spec) / 1e6));
        StringBuilder codes = new StringBuilder("{");
        for (int c = 0; c < s.statusCounts.length; c++) {
            if (s.statusCounts[c] > 0) {
                codes.append(codes.length() > 1 ? ", " : "").append('"').append(c).append("\": ").append(s.statusCounts[c]);
            }
        }
        field(j, "status_codes", codes.append('}').toString());
        field(j, "errors", "{\"connect\": " + s.connectErrors + ", \"read\": " + s.readErrors + ", \"write\": "
                + s.writeErrors + ", \"timeout\": " + s.timeouts + "}");
        j.setLength(j.length() - 2);
        return j.append("\n}\n").toString();
    }

    private static void field(StringBuilder j, String name, String value) {
        j.append("  \"").append(name).append("\": ").append(value).append(",\n");
    }

    static String num(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "null";
        }
        return String.format(Locale.ROOT, "%.6f", v).replaceAll("0+$", "").replaceAll("\\.$", ".0");
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
