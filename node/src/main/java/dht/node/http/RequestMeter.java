package dht.node.http;

/**
 * Told of every request the {@link Router} dispatched, once its answer is ready: what it was, its
 * status, and the time from dispatch to the answer (for a stream, to its head). Runs on the event
 * loop on the request path: an implementation must not block and should not allocate.
 */
public interface RequestMeter {
    /** What a request was, for the {@code op} label; {@link #label()} is what the metrics show. */
    enum Operation {
        GET, PUT, DELETE, SCAN, STATUS, REPLICA, METRICS, UI, ADMIN, OTHER;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    void answered(Operation op, int status, long nanos);

    RequestMeter NONE = (op, status, nanos) -> { };
}
