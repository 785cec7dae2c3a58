package dht.node.cluster;

import dht.storage.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tombstones that keep an expiring overwrite from bringing back the value it replaced. A
 * value written with a {@code ttl} must read as absent on every node once it expired; written with
 * fewer copies ({@code from}) than the replication factor, it skips replicas that may still hold
 * an older value without expiry, which a read hearing only them would answer. So once such a
 * write succeeded, each skipped replica among the replication factor's is sent a tombstone just
 * older than it (as anti-entropy would send later, {@code ExchangePeers#replacing}): it shadows
 * only versions the write supersedes anyway, and never the write itself. A replica that fails it
 * gets it as a hint. Not while data moves (anti-entropy then places them).
 *
 * <p>Cost: {@code RF - from} more replica writes per such write, and a tombstone on each skipped
 * replica whether or not it held an older value (forgotten after the grace, as any other); sent
 * after the answer, outside {@code --max-in-flight}, as read repair's final writes are.
 */
final class ExpiryShadows {
    private static final Logger log = LoggerFactory.getLogger(ExpiryShadows.class);

    private ExpiryShadows() {
    }

    /** The replicas {@code written} (a write's targets, with {@code from}) leaves to shadow; empty when none is owed. */
    static List<String> owed(Topology t, Entry written, int from) {
        int rf = t.membership().replicationFactor();
        if (written.isTombstone() || written.expiry() == 0 || from >= rf || t.membership().changing()) return List.of();
        List<String> out = new ArrayList<>(t.readTargets(written.key(), Math.min(rf, t.size())));
        out.removeAll(t.readTargets(written.key(), from));
        return out;
    }

    /** Sends each of {@code to} the tombstone just older than {@code written}; failures become hints (none: logged). */
    static void send(Map<String, Replica> replicas, HintedHandoff hints, List<String> to, Entry written, long placedBy) {
        if (to.isEmpty() || written.timestamp() <= 0) return;
        try {
            sendEach(replicas, hints, to, written, placedBy);
        } catch (RuntimeException e) {
            // the write is answered whatever happens here; anti-entropy places the shadows later
            log.error("shadows of an expiring write not sent", e);
        }
    }

    private static void sendEach(Map<String, Replica> replicas, HintedHandoff hints, List<String> to, Entry written,
                                 long placedBy) {
        Entry shadow = Entry.tombstone(written.key(), written.timestamp() - 1);
        for (String url : to) {
            CompletableFuture<Void> call;
            try {
                call = replicas.get(url).write(shadow, placedBy);
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            }
            call.whenComplete((ok, failure) -> {
                if (failure == null) return;
                if (hints != null) hints.hold(url, shadow);
                else log.debug("shadow of an expiring write not sent to {}: {}", url, failure.toString());
            });
        }
    }
}
