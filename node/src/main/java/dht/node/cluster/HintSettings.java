package dht.node.cluster;

import java.time.Duration;

/**
 * Bounds of hinted handoff ({@code HintedHandoff}), from the node's flags.
 *
 * @param window         a hint older than this (by its write's timestamp) is dropped, not delivered
 * @param bytesPerPeer   the most hint file bytes kept for one peer; past it new hints are dropped
 * @param bytesPerSecond how fast one peer's hints are delivered, so that a returning node is not
 *                       flattened by its backlog
 */
public record HintSettings(Duration window, long bytesPerPeer, long bytesPerSecond) {
    public static final Duration DEFAULT_WINDOW = Duration.ofHours(3);
    public static final long DEFAULT_BYTES_PER_PEER = 256L << 20;
    public static final long DEFAULT_BYTES_PER_SECOND = 8L << 20;
    public static final HintSettings DEFAULTS = new HintSettings(DEFAULT_WINDOW, DEFAULT_BYTES_PER_PEER,
            DEFAULT_BYTES_PER_SECOND);

    public HintSettings {
        if (window.isNegative() || window.isZero()) throw new IllegalArgumentException("hint window must be positive");
        if (bytesPerPeer < 0) throw new IllegalArgumentException("hint bytes must not be negative");
        if (bytesPerSecond <= 0) throw new IllegalArgumentException("hint rate must be positive");
    }
}
