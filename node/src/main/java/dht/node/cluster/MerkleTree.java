package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.Stamp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.BitSet;
import net.openhft.hashing.LongHashFunction;

/**
 * A hash tree over a set of entries with a fixed number of leaves ({@link #LEAVES}) by key-hash
 * range: a key's leaf is the top {@link #LEAF_BITS} bits of the XXH3 of its bytes, so a leaf never
 * depends on which other keys exist and two nodes agree on it without talking.
 *
 * <p>A leaf's hash is the XOR of the hashes of its entries ({@link #hashOf}), each over (key,
 * timestamp, whether the version is or may become a tombstone): order-free, so it can be built by a
 * scan in any order or updated one version at a time ({@link HashTrees}: XOR out the old, XOR in the
 * new). Two trees over the same entries have equal leaves; one entry with another timestamp or kind
 * changes its leaf (up to a 2^-64 collision). A value with an expiry hashes as the tombstone it
 * turns into when it expires (a read then shows a tombstone with its timestamp), so expiry, which
 * each node judges by its own clock, never changes a leaf. The tree is one level of leaves plus
 * the root: the leaves are what peers compare (docs/cluster.md, "Anti-entropy").
 */
public final class MerkleTree {
    public static final int LEAF_BITS = 12;
    public static final int LEAVES = 1 << LEAF_BITS;

    private static final LongHashFunction KEY_HASH = LongHashFunction.xx3();
    private static final LongHashFunction ENTRY_HASH = LongHashFunction.xx3(0x5EED_A17E_0000_0001L);
    private static final LongHashFunction VERSION_HASH = LongHashFunction.xx3(0x5EED_A17E_0000_0002L);

    private final long[] leaves;

    public MerkleTree() {
        this.leaves = new long[LEAVES];
    }

    private MerkleTree(long[] leaves) {
        this.leaves = leaves;
    }

    /** The leaf {@code key} falls in, in {@code [0, LEAVES)}. */
    public static int leafOf(byte[] key) {
        return leafOfHash(keyHash(key));
    }

    /** The XXH3 of the key's bytes, from which its leaf is taken. */
    static long keyHash(byte[] key) {
        return KEY_HASH.hashBytes(key);
    }

    static int leafOfHash(long keyHash) {
        return (int) (keyHash >>> (64 - LEAF_BITS));
    }

    /**
     * The hash of one version of one key: what a leaf folds in. Made from the key's {@link
     * #keyHash} and the version, (timestamp, whether it hashes as a tombstone), each through
     * XXH3 of one long, so a write that has hashed the key for its leaf hashes no key bytes again.
     * For one key, two versions never share a hash: each step is a bijection of 64-bit words
     * (for timestamps below 2^63, as every stored one is).
     */
    static long entryHash(long keyHash, long timestamp, boolean tombstone) {
        long version = VERSION_HASH.hashLong(timestamp << 1 | (tombstone ? 1 : 0));
        return ENTRY_HASH.hashLong(keyHash + version);
    }

    /** {@link #entryHash(long, long, boolean)} of the key's bytes. */
    static long entryHash(byte[] key, long timestamp, boolean tombstone) {
        return entryHash(keyHash(key), timestamp, tombstone);
    }

    /**
     * What {@code entry} contributes to its leaf; 0 for none (no version). A value with an expiry
     * counts as the tombstone it becomes (see the class comment).
     */
    static long hashOf(Entry entry) {
        if (entry == null) return 0;
        return hashOf(keyHash(entry.key()), entry);
    }

    /** {@link #hashOf(Entry)} of a present version, by its key's {@link #keyHash}. */
    static long hashOf(long keyHash, Entry entry) {
        return entryHash(keyHash, entry.timestamp(), entry.isTombstone() || entry.expiry() != 0);
    }

    /** {@link #hashOf(Entry)} of a version known by its stamp (null: none), by its key's {@link #keyHash}. */
    static long hashOf(long keyHash, Stamp stamp) {
        if (stamp == null) return 0;
        return entryHash(keyHash, stamp.timestamp(), stamp.tombstone() || stamp.expiry() != 0);
    }

    /** A tree over the given leaves (copied). */
    static MerkleTree of(long[] leaves) {
        if (leaves.length != LEAVES) throw new IllegalArgumentException("a tree has " + LEAVES + " leaves");
        return new MerkleTree(leaves.clone());
    }

    /** Folds {@code entry} into its leaf (folding it in again takes it out). */
    public void add(Entry entry) {
        long keyHash = keyHash(entry.key());
        leaves[leafOfHash(keyHash)] ^= hashOf(keyHash, entry);
    }

    public long leaf(int index) {
        return leaves[index];
    }

    /** A hash of every leaf: equal trees have equal roots. */
    public long root() {
        return KEY_HASH.hashBytes(encode());
    }

    /** The leaves where this tree and {@code other} differ. */
    public BitSet diff(MerkleTree other) {
        BitSet out = new BitSet(LEAVES);
        for (int i = 0; i < LEAVES; i++) {
            if (leaves[i] != other.leaves[i]) out.set(i);
        }
        return out;
    }

    /** The leaves as {@link #LEAVES} big-endian 8-byte hashes, leaf 0 first. */
    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(LEAVES * Long.BYTES).order(ByteOrder.BIG_ENDIAN);
        for (long l : leaves) b.putLong(l);
        return b.array();
    }

    /** The inverse of {@link #encode()}; throws IllegalArgumentException on a body of the wrong size. */
    public static MerkleTree decode(byte[] body) {
        if (body.length != LEAVES * Long.BYTES) {
            throw new IllegalArgumentException("a tree has " + LEAVES * Long.BYTES + " bytes, got " + body.length);
        }
        ByteBuffer b = ByteBuffer.wrap(body).order(ByteOrder.BIG_ENDIAN);
        long[] leaves = new long[LEAVES];
        for (int i = 0; i < LEAVES; i++) leaves[i] = b.getLong();
        return new MerkleTree(leaves);
    }
}
