package dht.node.cluster;

import java.util.List;
import java.util.Map;

/** The static topology as this node sees it, for {@code GET /v0/status}. */
public interface ClusterView {
    /** This node's URL, one of {@link #nodes()}. */
    String self();

    /** Every node's URL, in the order given by the operator. */
    List<String> nodes();

    /** For each peer other than self: is it believed up right now? */
    Map<String, Boolean> peersUp();

    /** Counters of read repair and hinted handoff since start, by name, in a stable order. */
    default Map<String, Long> repair() {
        return Map.of();
    }

    /**
     * Hinted handoff per peer that had hints since start: {@code pending}, {@code pendingBytes},
     * {@code oldestAgeMillis}, {@code delivered}, {@code superseded} and {@code droppedFull},
     * {@code droppedExpired}, {@code droppedGrace}, {@code droppedRefused}.
     */
    default Map<String, Map<String, Long>> hints() {
        return Map.of();
    }

    /**
     * Anti-entropy's counters per peer ({@code lastExchangeMillis}, {@code keysCompared},
     * {@code keysSent}, {@code keysReceived}, {@code bytesSent}, {@code bytesReceived}, ...).
     */
    default Map<String, Map<String, Long>> antiEntropy() {
        return Map.of();
    }

    /**
     * Up to when (epoch ms) every peer is known to hold this node's tombstones ({@link PurgeHorizon}):
     * {@code Long.MAX_VALUE} with no peers, {@code Long.MIN_VALUE} while one is not yet covered.
     */
    default long purgeHorizonMillis() {
        return Long.MAX_VALUE;
    }

    /**
     * The hybrid logical clock's state, by name: {@code maxClockOffsetMillis},
     * {@code clockBehindPeersMillis} (how far ahead of this node's clock the latest timestamp it
     * refused was, if one was refused in the last 10 s; else 0) and {@code timestampsRefused}.
     */
    default Map<String, Long> clock() {
        return Map.of();
    }

    /** How many copies a key has by default (the default {@code from}); at most {@link #nodes()}'s size. */
    default int replicationFactor() {
        return nodes().size();
    }

    /** The agreed membership version this node uses (members, joining, leaving, version). */
    default Membership membership() {
        return Membership.initial(nodes(), replicationFactor());
    }

    /**
     * Data this node sends or receives because the membership changed, by name: {@code rebalancing}
     * (1 while any still moves), {@code bytesMoved}, {@code keysMoved}, {@code etaMillis} (-1: unknown).
     */
    default Map<String, Long> rebalancing() {
        return Map.of();
    }
}
