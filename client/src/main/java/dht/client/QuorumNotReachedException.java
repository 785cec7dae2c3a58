package dht.client;

import java.time.Duration;
import java.util.Optional;

/**
 * The node answered {@code 504}: fewer than {@code ack} replicas answered in time. For a write
 * this does NOT mean nothing happened: some replicas may have stored it, and a later read may see
 * it. The client therefore never retries a 504 on its own; the caller decides (writing the same
 * value again is safe, a read tells what is there).
 */
public class QuorumNotReachedException extends DhtException {
    private final Duration retryAfter;

    public QuorumNotReachedException(String node, String reason, Duration retryAfter) {
        super("node " + node + " could not reach enough replicas (504): " + reason, node, 504, reason, null);
        this.retryAfter = retryAfter;
    }

    /** The node's {@code Retry-After}, present when busy replicas (not failed ones) caused the 504. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
