package dht.bench;

import java.time.Instant;
import java.util.List;

/**
 * The merged outcome of one run: latencies (ns) of requests intended in the measured window,
 * status counts, errors, and per-thread requests/second samples (one per second).
 */
public record RunResult(LoadSpec spec, ConnectionStats stats, List<double[]> reqPerSecByThread,
                        double elapsedSeconds, Instant startedAt, Instant windowOpensAt, String transport) {

    public double requestsPerSecond() {
        return elapsedSeconds > 0 ? stats.completed / elapsedSeconds : 0;
    }

    public long errors() {
        return stats.connectErrors + stats.readErrors + stats.writeErrors + stats.timeouts;
    }

    /** Responses whose status is not 2xx (404 included: for get with misses, read it as such). */
    public long non2xx() {
        long n = 0;
        for (int s = 0; s < stats.statusCounts.length; s++) {
            if ((s < 200 || s >= 300) && stats.statusCounts[s] > 0) {
                n += stats.statusCounts[s];
            }
        }
        return n;
    }

    /** Latency at a percentile (0..100) in milliseconds. */
    public double latencyMs(double percentile) {
        return stats.latency.getValueAtPercentile(percentile) / 1e6;
    }
}
