package dht.node.cluster;

import java.util.BitSet;

/**
 * The leaves that exchanges with one peer paged to the end, each by the pair of hashes (this
 * node's, the peer's) it had when compared. While both hashes stay the same, both nodes hold what
 * they held then, and paging the leaf again would send what was sent then, which the receiver
 * already holds or drops: so an exchange skips it. Such a leaf differs for good where one node
 * holds a newer version it does not share with the other (a write that asked for fewer copies)
 * and the other the tombstone that shadows its older one; paged, each costs a scan of both stores,
 * and without this was paged every round until the tombstone was forgotten.
 *
 * <p>Invariants: a leaf is recorded only after an exchange that went through every page with no
 * failure (a refused or failed write or push fails the exchange); everything is forgotten when
 * the membership version or the trees' build changes, so a skipped leaf is paged again at least
 * once per build ({@link AntiEntropy#REBUILD_EVERY}). Used by the exchanging thread alone.
 */
final class QuietLeaves {
    private long version = -1;
    private long builtNanos;
    private final BitSet leaves = new BitSet(MerkleTree.LEAVES);
    private final long[] mine = new long[MerkleTree.LEAVES];
    private final long[] theirs = new long[MerkleTree.LEAVES];

    /**
     * Takes out of {@code differing} the leaves recorded with the same two hashes as in {@code m}
     * (this node's tree) and {@code t} (the peer's), having first forgotten everything if the
     * membership version or the trees' build is not the one recorded under. Returns how many.
     */
    int skip(BitSet differing, MerkleTree m, MerkleTree t, long version, long builtNanos) {
        if (version != this.version || builtNanos != this.builtNanos) {
            leaves.clear();
            this.version = version;
            this.builtNanos = builtNanos;
            return 0;
        }
        int skipped = 0;
        for (int i = differing.nextSetBit(0); i >= 0; i = differing.nextSetBit(i + 1)) {
            if (leaves.get(i) && mine[i] == m.leaf(i) && theirs[i] == t.leaf(i)) {
                differing.clear(i);
                skipped++;
            }
        }
        return skipped;
    }

    /**
     * Records {@code paged}, the leaves an exchange under {@code version} and {@code builtNanos}
     * paged to the end with no failure, by their hashes in the trees it compared.
     */
    void record(BitSet paged, MerkleTree m, MerkleTree t, long version, long builtNanos) {
        if (version != this.version || builtNanos != this.builtNanos) return; // forgotten since
        for (int i = paged.nextSetBit(0); i >= 0; i = paged.nextSetBit(i + 1)) {
            leaves.set(i);
            mine[i] = m.leaf(i);
            theirs[i] = t.leaf(i);
        }
    }
}
