package dht.node.cluster;

import java.time.Duration;
import java.util.BitSet;
import java.util.function.IntToLongFunction;

/**
 * The leaves that exchanges with one peer paged to the end, each with the peer's hash of it when
 * compared, this node's, and how often a version in it had changed on this node
 * ({@link HashTrees#leafChanges}, which counts versions no tree holds too) when the exchange began.
 * While no version in the leaf has changed here and the peer's hash stands, this node's entries are
 * what they were and so is the peer's page of it (the versions it shares with this node, whose
 * keys and timestamps its hash covers; what it does not cover, such as which value won a
 * timestamp tie there, the peer's own exchanges settle), so paging it again would send what was
 * sent then, which the receiver holds or drops: an exchange skips it. A write to any key of the
 * leaf changes it here or on the peer, so under a write load that touches most leaves between
 * exchanges, such a leaf is paged as often as before. Such a leaf differs for good where one node
 * holds a newer version it does not share with the other (a write that asked for fewer copies)
 * and the other the tombstone that shadows its older one; paged, each costs a scan of both stores.
 *
 * <p>Invariants: a leaf is recorded only after an exchange that went through every page with no
 * failure (a refused or failed write or push fails the exchange); everything is forgotten when
 * the membership version or the trees' build changes, and {@link #FOR} after the last time
 * everything was forgotten, so every leaf is paged again at least that often. An exchange that
 * skipped a leaf claims nothing for the purge horizon, so the horizon moves only by exchanges that
 * paged every differing leaf, at least once per {@link #FOR}. Used by the exchanging thread alone.
 */
final class QuietLeaves {
    /** How long leaves are skipped before every one of them is paged again. */
    static final Duration FOR = Duration.ofMinutes(10);

    private long version = -1;
    private long builtNanos;
    private long sinceNanos;
    private final BitSet leaves = new BitSet(MerkleTree.LEAVES);
    private final long[] changes = new long[MerkleTree.LEAVES];
    private final long[] mine = new long[MerkleTree.LEAVES];
    private final long[] theirs = new long[MerkleTree.LEAVES];

    /**
     * At the start of an exchange, before its first comparison: forgets everything if the
     * membership version or the trees' build is not the one recorded under, or {@link #FOR} has
     * passed; returns this node's change count of each leaf now, for {@link #record}.
     */
    long[] begin(long version, long builtNanos, long nowNanos, IntToLongFunction leafChanges) {
        if (version != this.version || builtNanos != this.builtNanos || nowNanos - sinceNanos > FOR.toNanos()) {
            leaves.clear();
            this.version = version;
            this.builtNanos = builtNanos;
            this.sinceNanos = nowNanos;
        }
        long[] now = new long[MerkleTree.LEAVES];
        for (int i = 0; i < now.length; i++) now[i] = leafChanges.applyAsLong(i);
        return now;
    }

    /**
     * Takes out of {@code differing} the leaves recorded whose change count here is still the one
     * recorded and whose hashes in {@code m} (this node's tree) and {@code t} (the peer's) are the
     * ones recorded. Returns how many.
     */
    int skip(BitSet differing, MerkleTree m, MerkleTree t, IntToLongFunction leafChanges) {
        int skipped = 0;
        for (int i = differing.nextSetBit(0); i >= 0; i = differing.nextSetBit(i + 1)) {
            if (leaves.get(i) && changes[i] == leafChanges.applyAsLong(i)
                    && mine[i] == m.leaf(i) && theirs[i] == t.leaf(i)) {
                differing.clear(i);
                skipped++;
            }
        }
        return skipped;
    }

    /**
     * Records {@code paged}, the leaves an exchange paged to the end with no failure, by the change
     * counts {@link #begin} returned to it (which set the version and build they hold for) and
     * their hashes in the trees it compared last.
     */
    void record(BitSet paged, long[] changesAtBegin, MerkleTree m, MerkleTree t) {
        for (int i = paged.nextSetBit(0); i >= 0; i = paged.nextSetBit(i + 1)) {
            leaves.set(i);
            changes[i] = changesAtBegin[i];
            mine[i] = m.leaf(i);
            theirs[i] = t.leaf(i);
        }
    }
}
