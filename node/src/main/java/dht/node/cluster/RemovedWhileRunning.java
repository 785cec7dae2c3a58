package dht.node.cluster;

import dht.storage.Entry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node removed from the membership while it ran: cut off from the members rather than dead
 * ({@code bin/dht remove} can only see that no member reaches it). It learns of its removal once
 * it reaches a member again. Meanwhile it may have acknowledged writes that no member has
 * ({@code ack=1}), so it pushes every version it holds to that version's owners under the
 * membership without it, marked as a move: their stores keep the newest version of each key, so a
 * version they have, or one that lost to a newer write, changes nothing. (A black-box tester
 * removed a member cut off by a partition: the writes it acknowledged in the meantime were lost
 * once the partition healed.) A version older than the tombstone grace is not sent: a tombstone
 * that deleted it may have been forgotten since, as for hints ({@link HintedHandoff}).
 *
 * <p>After the push, the node is still no member: it answers clients by the membership without
 * it, as any non-member coordinator would, and a restart on its data directory is refused.
 */
final class RemovedWhileRunning {
    private static final Logger log = LoggerFactory.getLogger(RemovedWhileRunning.class);

    static final int ATTEMPTS = 20;
    static final long RETRY_MILLIS = 3_000;

    private RemovedWhileRunning() {
    }

    /** Whether taking {@code next} over {@code before} removes {@code self}, which did not leave. */
    static boolean removes(String self, Membership before, Membership next) {
        return before.members().contains(self) && !before.leaving().contains(self) && !next.all().contains(self);
    }

    /**
     * Pushes what this node holds to its owners under {@code m}; one log line for the outcome. An
     * owner it cannot reach yet (its failure detector, cut off until a moment ago, may still count
     * it down) is tried again, alone, every {@link #RETRY_MILLIS}, up to {@link #ATTEMPTS} times.
     */
    static void push(Membership m, DataPush pushes, HybridLogicalClock clock, Duration tombstoneGrace) {
        long oldest = clock.physicalNow() - tombstoneGrace.toNanos() / 1_000;
        Placement owners = new Placement(m.owners());
        int rf = m.replicationFactor();
        AtomicLong versions = new AtomicLong();
        log.warn("this node was removed from the cluster (membership version {}) while it still ran: pushing the versions "
                + "it holds to their owners, for any write it acknowledged while cut off", m.version());
        Set<String> owed = new HashSet<>(m.owners());
        AtomicReference<String> lastFailure = new AtomicReference<>("");
        try {
            for (int attempt = 1; !owed.isEmpty() && attempt <= ATTEMPTS; attempt++) {
                if (attempt > 1) Thread.sleep(RETRY_MILLIS);
                Set<String> to = Set.copyOf(owed);
                Set<String> failed = new HashSet<>();
                boolean first = attempt == 1;
                pushes.all(null, (Entry e) -> {
                    if (e.timestamp() < oldest) return List.of();
                    if (first) versions.incrementAndGet();
                    List<String> gain = new ArrayList<>(owners.replicas(e.key(), Topology.copies(e, rf)));
                    gain.retainAll(to);
                    return gain;
                }, (peer, batch, bytes) -> {
                    if (failed.contains(peer)) return;
                    try {
                        pushes.send(peer, batch, bytes, m.version());
                    } catch (IOException e) {
                        failed.add(peer);
                        lastFailure.set(e.getMessage());
                    }
                }, true);
                owed = failed;
            }
        } catch (IOException | RuntimeException e) {
            lastFailure.set(e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            lastFailure.set("interrupted");
        }
        if (owed.isEmpty()) {
            log.warn("removed from the cluster: {} versions pushed to their owners; this node is no member (stop it; a "
                    + "restart on its data directory is refused)", versions.get());
        } else {
            log.error("removed from the cluster: pushing its versions to {} failed ({}); anything acknowledged here alone "
                    + "while it was cut off is only here (bin/dht repair reads it while it runs)", owed, lastFailure.get());
        }
    }
}
