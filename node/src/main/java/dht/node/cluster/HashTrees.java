package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.Store;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;

/**
 * Anti-entropy's hash trees, kept up to date on write (docs/cluster.md, "Anti-entropy"): one
 * {@link MerkleTree}'s leaves per peer, over the keys whose replica set holds this node and that
 * peer. Built once by a paced scan ({@link TreeBuild}), then every version the store takes through
 * {@link #tracked()} (client, replica, hint, repair and anti-entropy writes alike) updates them:
 * {@code leaf ^= hash(old) ^ hash(new)}, where {@code old} is what the trees hold for the key (the
 * engine's last-write-wins check does not tell what it replaced), taken from {@link HeldVersions}
 * and, for a key it does not know, read just before the write as a {@link Store#storedStamp}.
 *
 * <p>Invariant, while {@link #exact}: each peer's leaves are the XOR of {@link MerkleTree#hashOf}
 * of the version the store holds for each shared key: what a {@link Store#storedScan} would build
 * now, but for tombstones forgotten past the purge horizon (their hash stays; {@link PurgeHorizon})
 * and values a compaction turned into tombstones past the grace (still in their copies' trees). It
 * holds because (1) a key's lookup, write and tree update run under the key's stripe lock, so two
 * writes of one key never interleave between read and update, and (2) every tracked write runs
 * under the read side of {@code gate}, so a {@link #snapshot} (write side) sees no write half done:
 * the trees it copies are the store's state at that instant. A write that fails is followed by a
 * read of each of its keys, so a partly applied batch is counted as applied; if that read fails
 * too, or keys are purged behind the writes' back ({@link Store#purge}), the trees are no longer
 * exact until a new build completes.
 *
 * <p>The trees are for one {@link ExchangePeers} view (a membership version: its peers, placement
 * and replication factor). When anti-entropy moves to another version, {@link #retarget} (under
 * the write side of {@code gate}) swaps the view, drops the trees and any build under way, and
 * marks them drifted: until a build for the new view completes they are not exact and no snapshot
 * is served, and a snapshot is only served for the view it is asked for. The tracked store stays
 * the same object across views, so the write paths keep it.
 *
 * <p>Until the first build starts, writes pass through untouched (anti-entropy off everywhere
 * costs nothing); from then on each tracked write costs a probe of {@link HeldVersions} (a store
 * read only for a key it cannot tell).
 */
final class HashTrees {
    static final int STRIPES = 1 << 14;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    final Store inner;
    private final Store tracked;
    private final AtOnceTreeWrites atOnce = new AtOnceTreeWrites(this);
    private final WaitingTreeWrites waiting = new WaitingTreeWrites(this);
    /** Tracked writes take the read side for their whole read-write-update; snapshots and build steps the write side. */
    final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
    final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    /** What the trees hold for each key, so that a write need not read the store to learn it. */
    final HeldVersions versions;

    // Guarded by gate: changed under its write side, read under either.
    private ExchangePeers view;
    /** The view's peers by index, the trees' order, and which share each key. */
    private SharedPeers shared;
    boolean tracking;
    /** The live trees' leaves and key counts, by peer index; null before the first build completes. */
    private long[][] live;
    private long[] liveKeys;
    /** The build under way, or null. */
    TreeBuild.Progress building;
    // Guarded by this (taken alone, or inside gate's write side).
    private volatile boolean exact;
    /** Bumped whenever the trees may have drifted from the store: a build that saw a bump is not exact. */
    private long drift;
    private volatile long builtNanos;
    /** Per leaf, how often a key's version in it changed ({@link #changed}), shared with a peer or not. */
    private final AtomicLongArray leafChanges = new AtomicLongArray(MerkleTree.LEAVES);

    /**
     * @param view  the membership view the trees start for (its peers and replica sets)
     * @param store this node's store; write to it only through {@link #tracked()}
     */
    HashTrees(ExchangePeers view, Store store) {
        this(view, store, HeldVersions.defaultBytes());
    }

    /**
     * @param heldBytes the most off-heap bytes for {@link HeldVersions} (16 a key); past it, writes
     *                  of the keys it could not take read the store first
     */
    HashTrees(ExchangePeers view, Store store, long heldBytes) {
        this.versions = new HeldVersions(heldBytes);
        this.view = view;
        this.shared = new SharedPeers(view);
        this.inner = store;
        for (int i = 0; i < STRIPES; i++) stripes[i] = new ReentrantLock();
        this.tracked = new TreeTrackingStore(store, this);
    }

    /** The store as every write path must use it, so that the trees follow each version it takes. */
    Store tracked() {
        return tracked;
    }

    /** The view the trees are for (or are being built for). */
    ExchangePeers view() {
        gate.readLock().lock();
        try {
            return view;
        } finally {
            gate.readLock().unlock();
        }
    }

    /**
     * Makes the trees follow {@code next} when it is another membership version than theirs: the
     * old trees and any build under way are dropped (their peers and replica sets are not the new
     * ones), and the trees are not exact until a build for {@code next} completes.
     */
    void retarget(ExchangePeers next) {
        gate.writeLock().lock();
        try {
            if (next.version() == view.version()) return;
            synchronized (this) {
                view = next;
                shared = new SharedPeers(next);
                live = null;
                liveKeys = null;
                building = null; // its run sees that it was dropped, and stops
                drift++;
                exact = false;
            }
        } finally {
            gate.writeLock().unlock();
        }
    }

    /**
     * One peer's tree as of one instant, with how many keys it covers; {@code takenMillis} by the
     * clock given. It stands for {@code view} alone: its keys are the ones that view's replica
     * sets give both nodes.
     */
    record Snapshot(ExchangePeers view, MerkleTree tree, long keys, long takenMillis) {
    }

    /**
     * {@code peer}'s tree now, copied while no tracked write is under way, or null while the trees
     * are not exact (never built, being rebuilt after they may have drifted) or are for another
     * view than {@code forView} (another membership version).
     */
    Snapshot snapshot(ExchangePeers forView, String peer, LongSupplier clockMillis) {
        gate.writeLock().lock();
        try {
            if (forView.version() != view.version() || live == null || !exact) return null;
            int i = index(peer);
            return new Snapshot(view, MerkleTree.of(live[i]), liveKeys[i], clockMillis.getAsLong());
        } finally {
            gate.writeLock().unlock();
        }
    }

    /** Whether a build has completed and nothing has made the trees drift since. */
    boolean exact() {
        gate.readLock().lock();
        try {
            return live != null && exact;
        } finally {
            gate.readLock().unlock();
        }
    }

    /** Whether a build has ever completed. */
    boolean built() {
        gate.readLock().lock();
        try {
            return live != null;
        } finally {
            gate.readLock().unlock();
        }
    }

    /** {@link System#nanoTime()} when the last build completed. */
    long builtNanos() { return builtNanos; }

    /** How often a version of a key in {@code leaf} changed since start, whether or not a peer's tree holds it. */
    long leafChanges(int leaf) { return leafChanges.get(leaf); }

    private int index(String peer) {
        int i = shared.indexOf(peer);
        if (i < 0) throw new IllegalArgumentException("not a peer: " + peer);
        return i;
    }

    // ------------------------------------------------------------ builds (TreeBuild, under gate's write side)

    /** A new build for the current view (under gate's write side): writes are tracked from now on. */
    synchronized TreeBuild.Progress beginBuild() {
        if (building != null) throw new IllegalStateException("a build is under way");
        TreeBuild.Progress p = new TreeBuild.Progress(shared, drift, versions.losses());
        tracking = true;
        building = p;
        return p;
    }

    /** Whether {@code p} is still the build under way: a {@link #retarget} drops it. */
    boolean current(TreeBuild.Progress p) {
        return building == p;
    }

    /**
     * The build's trees become the live ones: exact unless something drifted since it began (a
     * retarget counts as drift). Returns false, changing nothing, when the build was dropped.
     */
    synchronized boolean completeBuild(TreeBuild.Progress p) {
        if (building != p) return false;
        live = p.trees;
        liveKeys = p.keys;
        building = null;
        exact = drift == p.driftAtStart;
        versions.markComplete(p.heldLossesAtStart); // every key was passed, and each one passed has a word
        builtNanos = System.nanoTime();
        return true;
    }

    synchronized void abandonBuild(TreeBuild.Progress p) {
        if (building == p) building = null;
    }

    /**
     * Folds a key's version (its hash; {@code present}: not none; its {@link HeldVersions#treeCopies})
     * into build {@code p}'s trees, by the replica sets of the view {@code p} is for. {@code keyHash}:
     * {@link MerkleTree#keyHash} of the key.
     */
    static void fold(TreeBuild.Progress p, byte[] key, long keyHash, long hash, boolean present, int copies) {
        int[] peers = p.shared.of(key, copies);
        if (peers.length == 0) return;
        int leaf = MerkleTree.leafOfHash(keyHash);
        for (int i : peers) {
            SLOT.getAndBitwiseXor(p.trees[i], leaf, hash);
            if (present) SLOT.getAndAdd(p.keys, i, 1L);
        }
    }

    // ------------------------------------------------------------ writes

    /** The trees may no longer match the store (a purge, a write whose outcome could not be read). */
    synchronized void drifted() {
        drift++;
        exact = false;
    }

    /**
     * Keys may have left the store behind the trees' back (a purge): the trees have drifted, and
     * no key's word is trusted any more. Takes the write side: call it with no gate held.
     */
    void forgetAll() {
        gate.writeLock().lock();
        try {
            versions.clear();
            drifted();
        } finally {
            gate.writeLock().unlock();
        }
    }

    /**
     * These keys were written past the trees ({@link LoneNodeStore}, as it grew): the trees have
     * drifted, and the keys' words are not known. Call it with no gate held.
     */
    void forget(List<Entry> written) {
        gate.readLock().lock();
        try {
            for (Entry e : written) {
                long keyHash = MerkleTree.keyHash(e.key());
                ReentrantLock stripe = stripes[(int) keyHash & (STRIPES - 1)];
                stripe.lock();
                try {
                    if (versions.get(keyHash) != HeldVersions.ABSENT || versions.complete()) {
                        versions.put(keyHash, HeldVersions.UNKNOWN);
                    }
                } finally {
                    stripe.unlock();
                }
            }
            drifted();
        } finally {
            gate.readLock().unlock();
        }
    }

    /**
     * {@link #write} when it cannot wait, else false with nothing written (see {@link
     * AtOnceTreeWrites}).
     */
    boolean tryWrite(List<Entry> entries) throws IOException {
        return atOnce.tryWrite(entries);
    }

    /** Writes {@code entries} through to the store, updating the trees by what each key held before. */
    void write(List<Entry> entries) throws IOException {
        waiting.write(entries);
    }

    /**
     * Whether a write of a version with word {@code now} and timestamp {@code ts} over word
     * {@code old} cannot be judged from the words: either is unknown, or the timestamps tie (the
     * stored value breaks a tie, and a word does not carry it). The store is then read back.
     */
    static boolean mustReadBack(long old, long now, long ts) {
        return old == HeldVersions.UNKNOWN || now == HeldVersions.UNKNOWN
                || old != HeldVersions.NONE && HeldVersions.timestamp(old) == ts;
    }

    /**
     * What {@link #versions} alone tell of the key: its word, {@link HeldVersions#NONE} for a key
     * they do not hold while they hold every key, else {@link HeldVersions#UNKNOWN} (only the
     * store can tell).
     */
    long heldKnown(long keyHash) {
        long w = versions.get(keyHash);
        if (w == HeldVersions.ABSENT) return versions.complete() ? HeldVersions.NONE : HeldVersions.UNKNOWN;
        return w;
    }

    /**
     * Updates the trees from {@code old} (a word) to what the store holds for the key now; if that
     * cannot be read, or {@code old} is not known, the trees have drifted and the key's word is
     * {@link HeldVersions#UNKNOWN}.
     */
    void readBack(byte[] key, long keyHash, long old) {
        try {
            long now = HeldVersions.word(inner.storedStamp(key));
            if (old == HeldVersions.UNKNOWN || now == HeldVersions.UNKNOWN) {
                versions.put(keyHash, HeldVersions.UNKNOWN);
                drifted();
            } else {
                changed(key, keyHash, old, now);
            }
        } catch (IOException | RuntimeException e) {
            versions.put(keyHash, HeldVersions.UNKNOWN);
            drifted();
        }
    }

    /**
     * The key's version went from word {@code old} to word {@code now} (neither {@link
     * HeldVersions#UNKNOWN}; {@code keyHash}: its {@link MerkleTree#keyHash}), under its stripe and
     * the read side. Each word sits in the trees of the peers its copies give ({@link
     * SharedPeers#of}): when they differ, the old one leaves its peers' trees, the new one joins its own.
     */
    void changed(byte[] key, long keyHash, long old, long now) {
        versions.put(keyHash, now);
        leafChanges.incrementAndGet(MerkleTree.leafOfHash(keyHash));
        long oldHash = HeldVersions.hash(keyHash, old);
        long nowHash = HeldVersions.hash(keyHash, now);
        int oldCopies = HeldVersions.copies(old);
        int nowCopies = HeldVersions.copies(now);
        if (old == HeldVersions.NONE || now == HeldVersions.NONE || oldCopies == nowCopies) {
            int copies = old == HeldVersions.NONE ? nowCopies : oldCopies;
            long count = (now == HeldVersions.NONE ? 0 : 1) - (old == HeldVersions.NONE ? 0 : 1);
            if (oldHash != nowHash || count != 0) apply(key, keyHash, shared.of(key, copies), oldHash ^ nowHash, count);
        } else {
            apply(key, keyHash, shared.of(key, oldCopies), oldHash, -1);
            apply(key, keyHash, shared.of(key, nowCopies), nowHash, 1);
        }
    }

    /**
     * XORs {@code delta} into the key's leaf and adds {@code count} to the key counts of {@code
     * peers}' trees, live and building. A key the build has not passed is marked dirty even when
     * no peer shares this version: the build's scan may have read a version that one does share,
     * and the word it sets from that read must not outlive this write.
     */
    private void apply(byte[] key, long keyHash, int[] peers, long delta, long count) {
        int leaf = MerkleTree.leafOfHash(keyHash);
        if (live != null) {
            for (int i : peers) {
                SLOT.getAndBitwiseXor(live[i], leaf, delta);
                if (count != 0) SLOT.getAndAdd(liveKeys, i, count);
            }
        }
        TreeBuild.Progress b = building;
        if (b == null) return;
        if (b.passed(key)) {
            for (int i : peers) {
                SLOT.getAndBitwiseXor(b.trees[i], leaf, delta);
                if (count != 0) SLOT.getAndAdd(b.keys, i, count);
            }
        } else {
            b.dirty.add(ByteBuffer.wrap(key.clone()));
        }
    }
}
