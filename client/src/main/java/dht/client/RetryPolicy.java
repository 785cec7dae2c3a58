package dht.client;

import java.time.Duration;
import java.util.Objects;

/**
 * When a request answered {@code 503} (the node overloaded or stopping: nothing was changed) is
 * sent again. It waits as long as the answer's {@code Retry-After} says, or, without one, a
 * backoff that doubles from {@link #initialDelay(Duration)}, and gives up after
 * {@link #maxAttempts(int)} sends or when asked to wait longer than {@link #maxDelay(Duration)},
 * with an {@link OverloadedException}. Each retry goes to the next configured node.
 *
 * <p>Nothing else is retried: a {@code 504} or a timeout may have taken effect, and 4xx answers
 * would only repeat. A node that cannot be connected to is not an attempt: the request moves on to
 * the next node until every node has failed to connect. Immutable.
 */
public final class RetryPolicy {
    private static final RetryPolicy DEFAULTS = new RetryPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(10));

    private final int maxAttempts;
    private final Duration initialDelay;
    private final Duration maxDelay;

    private RetryPolicy(int maxAttempts, Duration initialDelay, Duration maxDelay) {
        this.maxAttempts = maxAttempts;
        this.initialDelay = initialDelay;
        this.maxDelay = maxDelay;
    }

    /** Three sends in all, 100 ms then 200 ms apart without a Retry-After, waits of up to 10 s. */
    public static RetryPolicy defaults() {
        return DEFAULTS;
    }

    /** One send: a 503 is reported at once. */
    public static RetryPolicy none() {
        return DEFAULTS.maxAttempts(1);
    }

    /** Sends in all, the first included; at least 1. */
    public RetryPolicy maxAttempts(int attempts) {
        return new RetryPolicy(Checks.positive("maxAttempts", attempts), initialDelay, maxDelay);
    }

    /** The first wait when the answer has no Retry-After; doubled for each further retry. */
    public RetryPolicy initialDelay(Duration delay) {
        if (delay.isNegative()) throw new IllegalArgumentException("initialDelay must not be negative, got " + delay);
        return new RetryPolicy(maxAttempts, delay, maxDelay);
    }

    /** The longest wait before a retry; a Retry-After beyond it ends the retries. */
    public RetryPolicy maxDelay(Duration delay) {
        if (delay.isNegative()) throw new IllegalArgumentException("maxDelay must not be negative, got " + delay);
        return new RetryPolicy(maxAttempts, initialDelay, delay);
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public Duration initialDelay() {
        return initialDelay;
    }

    public Duration maxDelay() {
        return maxDelay;
    }

    /**
     * The wait before the next send after {@code attemptsMade} sends, the last answered 503 with
     * {@code retryAfter} (null when it had none); null when the policy gives up.
     */
    Duration delayAfterOverload(int attemptsMade, Duration retryAfter) {
        if (attemptsMade >= maxAttempts) return null;
        Duration wait = retryAfter != null ? retryAfter
                : initialDelay.multipliedBy(1L << Math.min(20, attemptsMade - 1));
        if (retryAfter == null && wait.compareTo(maxDelay) > 0) return maxDelay;
        return wait.compareTo(maxDelay) > 0 ? null : wait;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryPolicy p && p.maxAttempts == maxAttempts && p.initialDelay.equals(initialDelay)
                && p.maxDelay.equals(maxDelay);
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxAttempts, initialDelay, maxDelay);
    }

    @Override
    public String toString() {
        return "RetryPolicy[maxAttempts=" + maxAttempts + ", initialDelay=" + initialDelay.toMillis()
                + " ms, maxDelay=" + maxDelay.toMillis() + " ms]";
    }
}
