package dht.node;

import dht.node.cluster.AntiEntropySettings;
import dht.node.cluster.HintSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The configuration of an in-process cluster node for the membership tests: defaults throughout,
 * a 2 s replica timeout, 1 MiB memtables, rebalancing unpaced unless asked, and anti-entropy off,
 * so that only the path under test moves data.
 */
final class InProcessNodeConfigs {
    private InProcessNodeConfigs() {
    }

    /**
     * @param replicationFactor 0: the cluster's size
     * @param join              a member's URL to join through, or null
     */
    static NodeConfig of(int port, Path data, List<String> cluster, int replicationFactor, String join) {
        return of(port, data, cluster, replicationFactor, join, HintSettings.DEFAULTS, 0);
    }

    /**
     * As above, with hinted handoff's {@code hints} settings (those handed over included) and a
     * budget for the data a membership change moves ({@code rebalanceBytesPerSecond}, 0: none).
     */
    static NodeConfig of(int port, Path data, List<String> cluster, int replicationFactor, String join, HintSettings hints,
                         long rebalanceBytesPerSecond) {
        return of(port, data, cluster, replicationFactor, join, hints, rebalanceBytesPerSecond,
                new AntiEntropySettings(Duration.ZERO, AntiEntropySettings.DEFAULT_BYTES_PER_SECOND));
    }

    /** As above, with anti-entropy run by {@code antiEntropy}. */
    static NodeConfig of(int port, Path data, List<String> cluster, int replicationFactor, String join, HintSettings hints,
                         long rebalanceBytesPerSecond, AntiEntropySettings antiEntropy) {
        String self = "http://localhost:" + port;
        return new NodeConfig(port, data, self, cluster, 256, NodeConfig.DEFAULT_MAX_BODY_BYTES,
                NodeConfig.DEFAULT_MAX_URI_BYTES, NodeConfig.DEFAULT_MAX_HEADER_BYTES, Duration.ofSeconds(2), false,
                1 << 20, null, 0, NodeConfig.DEFAULT_BODY_TIMEOUT, Tuning.defaults(), NodeConfig.DEFAULT_MAX_CLOCK_OFFSET,
                NodeConfig.DEFAULT_COMPRESSION, null, null, null, hints, antiEntropy,
                NodeConfig.DEFAULT_TOMBSTONE_GRACE, replicationFactor, join, rebalanceBytesPerSecond);
    }
}
