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

    /**
     * What to send {@code peer}, which holds an older version of {@code newer}'s key, so that it no
     * longer answers with it: {@code newer} itself when the two share it or it is a tombstone; else
     * a tombstone just older than it (at timestamp 0, which has none older, itself). A value sent
     * where its copies do not place it would sit outside every tree, and a later write with as few
     * copies would leave it stale for good, or a delete that does not reach it would let it come
     * back; the tombstone shadows the older version and is forgotten after the grace, like any other.
     */
    private Entry replacing(Entry newer, String peer) {
        if (newer.isTombstone() || shares(newer, peer)) return newer;
        return newer.timestamp() > 0 ? Entry.tombstone(newer.key(), newer.timestamp() - 1) : newer;
    }

    /**
     * {@link #replacing} for a peer that holds {@code held}, or null when {@code held} is not older
     * than it (the tombstone that shadows an older version is there already): sent again each
     * exchange, it would reach the peer late every time, holding its purge horizon back for nothing.
     */
    Entry replacing(Entry newer, Entry held, String peer) {
        Entry r = replacing(newer, peer);
        return r.supersedes(held) ? r : null;
    }

    /** Whether this node and {@code peer} both replicate the version {@code e}. */
    boolean shares(Entry e, String peer) {
        return holders(e.key(), HeldVersions.treeCopies(e)).contains(peer);
    }
}
