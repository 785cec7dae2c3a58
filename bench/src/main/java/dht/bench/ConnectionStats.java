package dht.bench;

import org.HdrHistogram.Histogram;

/**
 * What one connection measured over the measured window (requests whose intended send time is
 * after the warmup). Owned by the connection's event-loop thread until the run ends, then merged.
 */
public final class ConnectionStats {
    /** Latencies in nanoseconds, up to one hour. */
    private static Histogram histogram(int significantDigits) {
        return new Histogram(3_600_000_000_000L, significantDigits);
    }

    final Histogram latency;
    /** How late the generator itself sent requests it was free to send on time. */
    final Histogram sendLag;
    /** When in the window the slow answers were (by intended send time). */
    final Timeline timeline = new Timeline();
    final long[] statusCounts = new long[600];
    long bytesRead;
    long completed;
    /** System.nanoTime of the last answer (0: none): a run's window lasts until then if that is later than its end. */
    long lastCompletedAt;
    long connectErrors;
    long readErrors;
    long writeErrors;
    long timeouts;
    long due;
    long sent;
    /**
     * How late the first request of the measured window went out (ns; -1: none did). Large when the
     * window opened while the generator was still catching up with the warm-up: a fresh JVM on a
     * busy machine can need seconds to reach the rate, and that backlog then lands in the
     * measured latencies as if the server had stalled.
     */
    long windowOpenLag = -1;

    ConnectionStats() {
        this(3);
    }

    /** With fewer significant digits for figures nobody reads (the warm-up's): 5 KB, not 270 KB. */
    ConnectionStats(int significantDigits) {
        latency = histogram(significantDigits);
        sendLag = histogram(significantDigits);
    }

    void merge(ConnectionStats o) {
        latency.add(o.latency);
        sendLag.add(o.sendLag);
        timeline.merge(o.timeline);
        for (int i = 0; i < statusCounts.length; i++) {
            statusCounts[i] += o.statusCounts[i];
        }
        bytesRead += o.bytesRead;
        completed += o.completed;
        lastCompletedAt = Math.max(lastCompletedAt, o.lastCompletedAt);
        connectErrors += o.connectErrors;
        readErrors += o.readErrors;
        writeErrors += o.writeErrors;
        timeouts += o.timeouts;
        due += o.due;
        sent += o.sent;
        windowOpenLag = Math.max(windowOpenLag, o.windowOpenLag);
    }
}
