package dht.node.cluster;

import java.util.List;

/**
 * What one membership version makes of anti-entropy for one node: its peers (the other members;
 * none when this node is not a member, such as while it joins) and each key's replica set, the
 * first replication-factor members of the key's placement. Immutable; a new version builds a new one.
 */
record ExchangePeers(long version, String self, List<String> peers, Placement placement, int replicas) {
    static ExchangePeers of(String self, Membership m) {
        boolean member = m.members().contains(self);
        List<String> peers = member ? m.members().stream().filter(n -> !n.equals(self)).toList() : List.of();
        return new ExchangePeers(m.version(), self, peers, new Placement(m.members()), m.replicationFactor());
    }

    /** The key's replicas when this node is one of them, else an empty list. */
    List<String> holders(byte[] key) {
        if (peers.isEmpty()) return List.of();
        List<String> r = placement.replicas(key, replicas);
        return r.contains(self) ? r : List.of();
    }

    /** Whether this node and {@code peer} both replicate {@code key}. */
    boolean shares(byte[] key, String peer) {
        return holders(key).contains(peer);
    }
}
