package dht.node.cluster;

import java.time.Duration;

/**
 * How often anti-entropy exchanges with each peer and what it may spend
 * ({@code --anti-entropy-interval}, {@code --anti-entropy-bytes-per-second}).
 *
 * @param interval       time between a node's exchanges with each peer; zero: this node starts
 *                       none (it still serves its peers')
 * @param bytesPerSecond budget of scanned, received and sent bytes; 0: no limit
 */
public record AntiEntropySettings(Duration interval, long bytesPerSecond) {
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(60);
    public static final long DEFAULT_BYTES_PER_SECOND = 16L << 20;
    public static final AntiEntropySettings DEFAULTS = new AntiEntropySettings(DEFAULT_INTERVAL, DEFAULT_BYTES_PER_SECOND);

    public AntiEntropySettings {
        java.util.Objects.requireNonNull(interval, "interval");
        if (interval.isNegative()) {
            throw new IllegalArgumentException("--anti-entropy-interval must not be negative, got " + interval);
        }
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("--anti-entropy-bytes-per-second must be 0 or more, got " + bytesPerSecond);
        }
    }
}
