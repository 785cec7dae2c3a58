package dht.cli;

import dht.node.text.Plural;
import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a {@code dht repair} run has done so far, updated from the repair requests' callbacks, and
 * its progress and summary lines in the user's words.
 *
 * <p>The ETA is an approximation, said as one: it compares the bytes streamed from the nodes so far
 * with the bytes they reported storing at the start ({@code storage} in {@code /v0/status}, tables
 * and memtables). Both count every node's copy of a key; the tables may still hold overwritten
 * versions that the streams skip, and the streams add 17 bytes of framing per key, so the estimate
 * drifts; it is only shown for the whole key space, where the stored figures apply.
 */
final class RepairTally {
    final LongAdder checked = new LongAdder();
    final LongAdder sent = new LongAdder();
    final LongAdder writesFailed = new LongAdder();
    /** Keys not fully repaired: an error answer, a failed repair write or a replica that did not answer. */
    final LongAdder keysFailed = new LongAdder();
    final LongAdder streamed = new LongAdder();
    final AtomicLong nodesNotReachable = new AtomicLong();
    private final long startNanos = System.nanoTime();
    private final long storedBytes;
    private long lastChecked;
    private long lastNanos = startNanos;

    /** @param storedBytes what the nodes store in all, or 0 when no ETA can be estimated */
    RepairTally(long storedBytes) {
        this.storedBytes = storedBytes;
    }

    /** The progress line: keys checked, rate over the last interval, repairs, failures, and an ETA when one can be estimated. */
    synchronized String progress() {
        long now = System.nanoTime();
        long keys = checked.sum();
        double seconds = Math.max(1e-3, (now - lastNanos) / 1e9);
        long rate = Math.round((keys - lastChecked) / seconds);
        lastChecked = keys;
        lastNanos = now;
        StringBuilder b = new StringBuilder("dht repair: ").append(String.format("%,d", keys)).append(" keys checked (")
                .append(String.format("%,d", rate)).append("/s), ").append(String.format("%,d", sent.sum()))
                .append(" replica writes sent, ").append(String.format("%,d", keysFailed.sum())).append(" keys failed");
        long streamedBytes = streamed.sum();
        if (storedBytes > 0 && streamedBytes > 0) {
            double done = Math.min(0.99, (double) streamedBytes / storedBytes);
            double elapsed = (now - startNanos) / 1e9;
            b.append(String.format(", ~%d%% streamed, ETA ~%s (estimated from the nodes' stored bytes)",
                    (int) (done * 100), duration(elapsed * (1 - done) / done)));
        }
        return b.toString();
    }

    /** The last line: whether the repair is complete, and every count. */
    String summary() {
        double elapsed = (System.nanoTime() - startNanos) / 1e9;
        long repaired = sent.sum() - writesFailed.sum();
        return String.format("dht repair: %s: %,d keys checked, %,d replicas repaired, %,d repair writes failed, "
                        + "%,d keys not fully repaired, %s not reachable, %s",
                complete() ? "complete" : "INCOMPLETE", checked.sum(), repaired, writesFailed.sum(), keysFailed.sum(),
                Plural.of(nodesNotReachable.get(), "node"), duration(elapsed));
    }

    boolean complete() {
        return keysFailed.sum() == 0 && writesFailed.sum() == 0 && nodesNotReachable.get() == 0;
    }

    void print(PrintStream err, String line) {
        synchronized (err) {
            err.println(line);
            err.flush();
        }
    }

    static String duration(double seconds) {
        if (seconds < 10) return String.format("%.1f s", seconds);
        long s = Math.round(seconds);
        if (s < 3600) return String.format("%d:%02d", s / 60, s % 60);
        return String.format("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }
}
