package dht.node.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.openhft.hashing.LongHashFunction;

/**
 * Rendezvous (highest-random-weight) placement: for each key, an ordering of all nodes, highest
 * score first; the replicas of a key for a given {@code from} are the first {@code from} nodes.
 *
 * <p>Invariants: the order depends only on the key bytes and the set of node URL strings (not on
 * the order the operator listed them in, not on indexes), so every node and every restart agrees;
 * a smaller {@code from} picks a prefix of a larger one. Scores are XXH3 of the key seeded with the
 * XXH3 of the node's URL; ties (probability 2^-64) are broken by URL so the order stays total.
 */
public final class Placement {
    private final String[] nodes;
    private final LongHashFunction[] hashes;
    /** The order of every key on a single node. */
    private final List<String> onlyNode;

    public Placement(List<String> nodes) {
        List<String> sorted = new ArrayList<>(nodes);
        sorted.sort(null);
        for (int i = 1; i < sorted.size(); i++) {
            if (sorted.get(i).equals(sorted.get(i - 1))) {
                throw new IllegalArgumentException("node listed twice: " + sorted.get(i));
            }
        }
        if (sorted.isEmpty()) throw new IllegalArgumentException("a cluster needs at least one node");
        this.nodes = sorted.toArray(String[]::new);
        this.hashes = new LongHashFunction[this.nodes.length];
        for (int i = 0; i < this.nodes.length; i++) {
            long seed = LongHashFunction.xx3().hashBytes(this.nodes[i].getBytes(StandardCharsets.UTF_8));
            hashes[i] = LongHashFunction.xx3(seed);
        }
        this.onlyNode = List.of(this.nodes[0]);
    }

    public int size() {
        return nodes.length;
    }

    /** The first {@code count} nodes of the key's order (count is clamped to the cluster size). */
    public List<String> replicas(byte[] key, int count) {
        int n = nodes.length;
        int k = Math.min(count, n);
        if (n == 1) return k < 1 ? List.of() : onlyNode; // a single node's order needs no hashing
        long[] scores = new long[n];
        for (int i = 0; i < n; i++) scores[i] = hashes[i].hashBytes(key);
        boolean[] taken = new boolean[n];
        List<String> out = new ArrayList<>(k);
        // Partial selection sort: k is at most n, and n is a handful of nodes.
        for (int r = 0; r < k; r++) {
            int best = -1;
            for (int i = 0; i < n; i++) {
                if (taken[i]) continue;
                if (best < 0 || Long.compareUnsigned(scores[i], scores[best]) > 0) best = i;
                // equal scores: the lower index, i.e. the smaller URL, stays first
            }
            taken[best] = true;
            out.add(nodes[best]);
        }
        return out;
    }

    /** The whole order for the key. */
    public List<String> order(byte[] key) {
        return replicas(key, nodes.length);
    }
}
