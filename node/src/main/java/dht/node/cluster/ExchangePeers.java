package dht.node.cluster;

import dht.storage.Entry;
import java.util.List;

/**
 * What one membership version makes of anti-entropy for one node: its peers (the other members;
 * none when this node is not a member, such as while it joins) and each version's replica set, the
 * first members of its key's placement, as many as the copies its write asked for ({@link
 * HeldVersions#treeCopies}; the replication factor when not known), so that anti-entropy never adds
 * a copy a write did not ask for. Immutable; a new version builds a new one.
 */
record ExchangePeers(long version, String self, List<String> peers, Placement placement, int replicas) {
    static ExchangePeers of(String self, Membership m) {
        boolean member = m.members().contains(self);
        List<String> peers = member ? m.members().stream().filter(n -> !n.equals(self)).toList() : List.of();
        return new ExchangePeers(m.version(), self, peers, new Placement(m.members()), m.replicationFactor());
    }

    /** How many nodes hold a version that asked for {@code copies} (0: not known, the replication factor's). */
    int holderCount(int copies) {
        return Math.min(copies > 0 ? copies : replicas, placement.size());
    }

    /** The replicas of a version of {@code key} with tree copies {@code copies} when this node is one of them, else an empty list. */
    List<String> holders(byte[] key, int copies) {
        if (peers.isEmpty()) return List.of();
        List<String> r = placement.replicas(key, holderCount(copies));
        return r.contains(self) ? r : List.of();
    }

    /** Whether this node and {@code peer} both replicate the version {@code e}. */
    boolean shares(Entry e, String peer) {
        return holders(e.key(), HeldVersions.treeCopies(e)).contains(peer);
    }
}
