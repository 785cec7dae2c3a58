package dht.node.cluster;

import dht.storage.Entry;
import java.util.ArrayList;
import java.util.List;

/**
 * One membership version as the coordinator uses it: where a key's reads go (the first
 * {@code from} nodes of its placement among the {@link Membership#members()}) and where its writes
 * go while data moves (those, plus the first {@code from} among the owners after the change: the
 * pending replicas, as Cassandra's pending ranges). Immutable; a change builds a new one.
 *
 * <p>Invariant: a write with pending replicas must be acknowledged by {@code ack} of the old
 * replicas and {@code ack} of the new ones ({@link #finalReplicas}), so that both hold it,
 * whichever set reads come from once the change is done ({@link MovingWriteQuorum}).
 */
public final class Topology {
    private final Membership membership;
    private final Placement readers;
    /** Null when nothing is moving. */
    private final Placement owners;

    public Topology(Membership membership) {
        this.membership = membership;
        this.readers = new Placement(membership.members());
        this.owners = membership.changing() ? new Placement(membership.owners()) : null;
    }

    public Membership membership() {
        return membership;
    }

    /** How many nodes serve reads: the largest {@code from}. */
    public int size() {
        return readers.size();
    }

    /** The replicas a read of {@code key} with this {@code from} asks. */
    public List<String> readTargets(byte[] key, int from) {
        return readers.replicas(key, from);
    }

    /** The replicas a write goes to: the readers' ones first, then the pending ones. */
    public List<String> writeTargets(byte[] key, int from) {
        List<String> old = readers.replicas(key, from);
        if (owners == null) return old;
        List<String> out = new ArrayList<>(old);
        for (String n : owners.replicas(key, Math.min(from, owners.size()))) {
            if (!out.contains(n)) out.add(n);
        }
        return out;
    }

    /**
     * How many copies of {@code e}'s key the cluster keeps once nothing moves: as many as its write
     * asked for ({@link Entry#copies}, the write's {@code from}), fewer than the replication factor
     * included, so that a move takes a {@code from=1} version to the key's new first replica, where
     * a {@code from=1} read looks; the replication factor when not recorded (0: a tombstone, or a
     * version written before copies were recorded).
     */
    public static int copies(Entry e, int replicationFactor) {
        return e.copies() > 0 ? e.copies() : replicationFactor;
    }

    /** Whether {@code node} holds {@code e}'s key once the change in progress is done, on the copies its write asked for. */
    public boolean keepsOn(Entry e, String node) {
        return finalReplicas(e.key(), copies(e, membership().replicationFactor())).contains(node);
    }

    /** The replicas of {@code key} once the change in progress is done (the placement among the owners). */
    public List<String> finalReplicas(byte[] key, int from) {
        return owners == null ? readers.replicas(key, from) : owners.replicas(key, from);
    }
}
