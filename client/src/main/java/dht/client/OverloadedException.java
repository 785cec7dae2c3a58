package dht.client;

import java.time.Duration;
import java.util.Optional;

/**
 * The node answered {@code 503} (overloaded, or shutting down) and the retry policy gave up: no
 * attempts left, or a {@code Retry-After} longer than the policy waits. A 503 changes nothing, so
 * the request may be sent again as it is.
 */
public class OverloadedException extends DhtException {
    private final int attempts;
    private final Duration retryAfter;

    public OverloadedException(String node, String reason, int attempts, Duration retryAfter) {
        super("node " + node + " is overloaded (503) after " + attempts + (attempts == 1 ? " attempt" : " attempts")
                + ": " + reason, node, 503, reason, null);
        this.attempts = attempts;
        this.retryAfter = retryAfter;
    }

    /** How many times the request was sent. */
    public int attempts() {
        return attempts;
    }

    /** The last answer's {@code Retry-After}, if it had one. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
