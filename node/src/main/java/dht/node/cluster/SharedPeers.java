package dht.node.cluster;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of a view's peers share a version of a key with this node ({@link ExchangePeers#holders}),
 * by the peers' index in the view, the order of the hash trees. Asked on every tracked write, so
 * when a version's replica set is the whole cluster (a replication factor of its size, the static
 * cluster's default) the answer, every peer, is worked out once.
 */
final class SharedPeers {
    private static final int[] NONE = new int[0];

    final ExchangePeers view;
    private final Map<String, Integer> index = new HashMap<>();
    /** The answer for a version on every node: every peer's index, or none when this node is not one. */
    private final int[] every;

    SharedPeers(ExchangePeers view) {
        this.view = view;
        for (int i = 0; i < view.peers().size(); i++) index.put(view.peers().get(i), i);
        this.every = indexes(view.holders(new byte[0], view.placement().size())); // any key's: every node, or none
    }

    /** The peer's index, or -1 if it is not one of the view's peers. */
    int indexOf(String peer) {
        Integer i = index.get(peer);
        return i == null ? -1 : i;
    }

    /**
     * The indexes of the peers that share a version of {@code key} with tree copies {@code copies}
     * ({@link HeldVersions#treeCopies}) with this node: none unless it is a replica.
     */
    int[] of(byte[] key, int copies) {
        if (view.holderCount(copies) >= view.placement().size()) return every;
        return indexes(view.holders(key, copies));
    }

    private int[] indexes(List<String> holders) {
        if (holders.isEmpty()) return NONE;
        int[] out = new int[holders.size() - 1];
        int n = 0;
        for (String h : holders) {
            Integer i = index.get(h);
            if (i != null) out[n++] = i;
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }
}
