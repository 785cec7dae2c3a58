package dht.node.metrics;

import dht.node.rpc.PeerCallMeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code dht_peer_calls_seconds{peer,outcome}}: every call this node makes to a peer (replica
 * reads and writes, batches, hint deliveries, failure-detector probes) by how it ended:
 * {@code answered} (any HTTP status), {@code failed} (connection refused or cut) or
 * {@code timeout}; and {@code dht_peer_calls_refused_total{peer}}: calls not sent because the
 * peer is believed down and silent (frozen, cut off); a peer down because its connections are
 * refused is still called, as a refusal costs no wait ({@code FailureDetector}). A peer that leaves the membership takes its series with it ({@link #retire}).
 */
final class PeerCallMetrics implements PeerCallMeter {
    private final MeterRegistry registry;
    /** The meters registered for each peer's URL, to remove when it leaves. */
    private final Map<String, List<Meter>> byPeer = new ConcurrentHashMap<>();

    PeerCallMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Peer peer(String url) {
        Timer answered = timer(url, "answered");
        Timer failed = timer(url, "failed");
        Timer timedOut = timer(url, "timeout");
        Counter refused = Counter.builder("peer.calls.refused")
                .description("Calls to a peer not sent because it is believed down and silent").tag("peer", url).register(registry);
        byPeer.put(url, List.of(answered, failed, timedOut, refused));
        return new Peer() {
            @Override
            public void answered(long nanos) {
                answered.record(nanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void failed(long nanos) {
                failed.record(nanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void timedOut(long nanos) {
                timedOut.record(nanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void refused() {
                refused.increment();
            }
        };
    }

    @Override
    public void retire(String url) {
        List<Meter> meters = byPeer.remove(url);
        if (meters != null) meters.forEach(registry::remove);
    }

    private Timer timer(String peer, String outcome) {
        return Timer.builder("peer.calls")
                .description("Calls to a peer by outcome: answered, failed, timeout")
                .tag("peer", peer)
                .tag("outcome", outcome)
                .publishPercentileHistogram()
                .minimumExpectedValue(HttpRequestMetrics.MIN_EXPECTED)
                .maximumExpectedValue(HttpRequestMetrics.MAX_EXPECTED)
                .register(registry);
    }
}
