package dht.bench;

import java.time.Duration;
import java.util.List;

/**
 * Everything one run of the generator needs. rate = 0 means closed loop: each connection sends
 * its next request as soon as the previous answer arrives (latency is then measured from the
 * actual send, as in plain wrk). maxRequests bounds the total (for fill), or -1. timerSlackNanos:
 * the grid send timers are rounded up to ({@link LoadGenerator#timerSlackNanos}), -1 for the default.
 * pipeline: requests in flight on each connection at most (1: the next is sent only after the answer;
 * more: HTTP/1.1 pipelining).
 */
public record LoadSpec(List<Target> targets, int connections, int threads, double rate,
                       Duration warmup, Duration duration, Duration timeout, long spinNanos,
                       RequestFactory requests, long maxRequests, boolean progress, long seed,
                       long timerSlackNanos, int pipeline) {

    public LoadSpec(List<Target> targets, int connections, int threads, double rate, Duration warmup,
                    Duration duration, Duration timeout, long spinNanos, RequestFactory requests,
                    long maxRequests, boolean progress, long seed, long timerSlackNanos) {
        this(targets, connections, threads, rate, warmup, duration, timeout, spinNanos, requests, maxRequests,
                progress, seed, timerSlackNanos, 1);
    }

    public LoadSpec(List<Target> targets, int connections, int threads, double rate, Duration warmup,
                    Duration duration, Duration timeout, long spinNanos, RequestFactory requests,
                    long maxRequests, boolean progress, long seed) {
        this(targets, connections, threads, rate, warmup, duration, timeout, spinNanos, requests, maxRequests,
                progress, seed, -1, 1);
    }

    public LoadSpec {
        if (connections < 1) {
            throw new IllegalArgumentException("--connections must be at least 1");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("--threads must be at least 1");
        }
        if (rate < 0) {
            throw new IllegalArgumentException("--rate must not be negative");
        }
        if (pipeline < 1) {
            throw new IllegalArgumentException("--pipeline must be at least 1");
        }
    }

    public boolean openModel() {
        return rate > 0;
    }

    /** The generator's event loops: one per thread, never more than the connections. */
    public int loopThreads() {
        return Math.min(threads, connections);
    }
}
