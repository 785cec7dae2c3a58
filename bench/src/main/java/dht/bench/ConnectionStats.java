package dht.bench;

import org.HdrHistogram.Histogram;

/**
 * What one connection measured over the measured window (requests whose intended send time is
 * after the warmup). Owned by the connection's event-loop thread until the run ends, then merged.
 */
public final class ConnectionStats {
    /** Latencies in nanoseconds; 3 significant digits, up to one hour. */
    public static Histogram newHistogram() {
        return new Histogram(3_600_000_000_000L, 3);
    }

    final Histogram latency = newHistogram();
    /** How late the generator itself sent requests it was free to send on time. */
    final Histogram sendLag = newHistogram();
    final long[] statusCounts = new long[600];
    long bytesRead;
    long completed;
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

    void merge(ConnectionStats o) {
        latency.add(o.latency);
        sendLag.add(o.sendLag);
        for (int i = 0; i < statusCounts.length; i++) {
            statusCounts[i] += o.statusCounts[i];
        }
        bytesRead += o.bytesRead;
        completed += o.completed;
        connectErrors += o.connectErrors;
        readErrors += o.readErrors;
        writeErrors += o.writeErrors;
        timeouts += o.timeouts;
        due += o.due;
        sent += o.sent;
        windowOpenLag = Math.max(windowOpenLag, o.windowOpenLag);
    }
}
