package dht.node.metrics;

import dht.node.cluster.ClusterView;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the cluster layer already counts ({@link ClusterView#repair()}: read repair, hinted
 * handoff, full repair) as function counters and gauges, and each peer's state as this node's
 * failure detector believes it ({@code dht_peer_up}).
 */
final class ClusterMetrics {
    private ClusterMetrics() {
    }

    /** Returns what the meters read, which the caller must keep: Micrometer holds it weakly. */
    static Object bind(MeterRegistry registry, ClusterView view) {
        Snapshot<Map<String, Long>> counts = new Snapshot<>(view::repair);
        Gauge.builder("cluster.members", view, v -> v.nodes().size())
                .description("Members of the cluster, this node included").register(registry);
        counter(registry, counts, "read.repairs", "sent", "readRepairsSent", "Read repairs by outcome");
        counter(registry, counts, "read.repairs", "failed", "readRepairsFailed", "Read repairs by outcome");
        counter(registry, counts, "hints.stored", null, "hintsHeld", "Hinted writes kept for a peer that missed them");
        counter(registry, counts, "hints.delivered", null, "hintsDelivered", "Hinted writes delivered to their peer");
        counter(registry, counts, "hints.dropped", null, "hintsDropped", "Hinted writes dropped, whatever the reason: no room, too old for the hint window or the tombstone grace, refused, lost, the peer removed, the key no longer the peer's (per reason under hints in /v0/status)");
        counter(registry, counts, "hints.superseded", null, "hintsSuperseded", "Hinted writes replaced by a newer hint for the same key");
        Gauge.builder("hints.pending", counts, c -> c.get().getOrDefault("hintsWaiting", 0L))
                .description("Hinted writes waiting for delivery").register(registry);
        counter(registry, counts, "full.repair.keys", null, "fullRepairKeys", "Keys compared by full repair");
        counter(registry, counts, "full.repairs", "sent", "fullRepairsSent", "Full repair writes by outcome");
        counter(registry, counts, "full.repairs", "failed", "fullRepairsFailed", "Full repair writes by outcome");
        return java.util.List.of(view, counts);
    }

    /**
     * {@code dht_peer_up}, one row per peer of the current membership, joining and leaving ones
     * included: the peers change with joins,
     * leaves and removals, so the rows are set again before a scrape whenever the members changed
     * (a member that left is no longer shown as down, one that joined is shown).
     */
    static final class PeerUp {
        private final ClusterView view;
        private final MultiGauge gauge;
        private List<String> shown = List.of();

        PeerUp(MeterRegistry registry, ClusterView view) {
            this.view = view;
            this.gauge = MultiGauge.builder("peer.up")
                    .description("1 while this node's failure detector believes the peer up, else 0").register(registry);
            refresh();
        }

        /** Sets the rows to the current peers, if they changed. */
        synchronized void refresh() {
            // Joining and leaving nodes included, as in /v0/status's peers: they take writes too.
            List<String> peers = List.copyOf(view.peersUp().keySet());
            if (peers.equals(shown)) return;
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            for (String peer : peers) {
                rows.add(MultiGauge.Row.of(Tags.of("peer", peer), view,
                        v -> Boolean.TRUE.equals(v.peersUp().get(peer)) ? 1 : 0));
            }
            gauge.register(rows, true);
            shown = peers;
        }
    }

    private static void counter(MeterRegistry registry, Snapshot<Map<String, Long>> counts, String name, String outcome,
                                String key, String description) {
        FunctionCounter.Builder<Snapshot<Map<String, Long>>> b = FunctionCounter
                .builder(name, counts, c -> c.get().getOrDefault(key, 0L)).description(description);
        if (outcome != null) b.tag("outcome", outcome);
        b.register(registry);
    }
}
