package dht.client;

import java.time.Duration;

/**
 * The node took the request but its answer (or, during a scan, its next bytes) did not come within
 * the request timeout. For a write the outcome is unknown: it may have taken effect. Never retried
 * by the client.
 */
public class DhtTimeoutException extends DhtException {
    public DhtTimeoutException(String node, Duration timeout, Throwable cause) {
        super("node " + node + " did not answer within " + timeout.toMillis() + " ms", node, 0, cause);
    }
}
