package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.Stamp;
import dht.storage.Store;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;

/**
 * Anti-entropy's hash trees, kept up to date on write (docs/cluster.md, "Anti-entropy"): one
 * {@link MerkleTree}'s leaves per peer, over the keys whose replica set holds this node and that
 * peer. Built once by a paced scan ({@link TreeBuild}), then every version the store takes through
 * {@link #tracked()} (client, replica, hint, repair and anti-entropy writes alike) updates them:
 * {@code leaf ^= hash(old) ^ hash(new)}, where {@code old} is what the store held for the key,
 * read just before the write (the engine's last-write-wins check does not tell what it replaced)
 * as a {@link Store#stamp}: the version's timestamp and kind, all a hash needs, no value copied.
 *
 * <p>Invariant, while {@link #exact}: each peer's leaves are the XOR of {@link MerkleTree#hashOf}
 * of the version the store holds for each shared key, that is, what a scan of the store would
 * build now, but for tombstones the engine forgot past the purge horizon (their hash stays; see
 * {@link PurgeHorizon}). It holds because (1) a key's read, write and tree update run under the
 * key's stripe lock, so two writes of one key never interleave between read and update, and
 * (2) every tracked write runs under the read side of {@code gate}, so a {@link #snapshot} (write
 * side) sees no write half done: the trees it copies are the store's state at that instant. A
 * write that fails is followed by a read of each of its keys, so a partly applied batch is counted
 * as applied; if that read fails too, or keys are purged behind the writes' back
 * ({@link Store#purge}), the trees are no longer exact until a new build completes.
 *
 * <p>The trees are for one {@link ExchangePeers} view (a membership version: its peers, placement
 * and replication factor). When anti-entropy moves to another version, {@link #retarget} (under
 * the write side of {@code gate}) swaps the view, drops the trees and any build under way, and
 * marks them drifted: until a build for the new view completes they are not exact and no snapshot
 * is served, and a snapshot is only served for the view it is asked for. The tracked store stays
 * the same object across views, so the write paths keep it.
 *
 * <p>Until the first build starts, writes pass through untouched (anti-entropy off everywhere
 * costs nothing); from then on each tracked write costs a stamp read of its key.
 */
final class HashTrees {
    private static final int STRIPES = 1 << 14;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    final Store inner;
    private final Store tracked;
    /** Tracked writes take the read side for their whole read-write-update; snapshots and build steps the write side. */
    final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

    // Guarded by gate: changed under its write side, read under either.
    private ExchangePeers view;
    /** The view's peers by index, the trees' order, and which share each key. */
    private SharedPeers shared;
    private boolean tracking;
    /** The live trees' leaves and key counts, by peer index; null before the first build completes. */
    private long[][] live;
    private long[] liveKeys;
    /** The build under way, or null. */
    TreeBuild.Progress building;
    // Guarded by this (taken alone, or inside gate's write side).
    private volatile boolean exact;
    /** Bumped whenever the trees may have drifted from the store: a build that saw a bump is not exact. */
    private long drift;
    private long builtNanos;

    /**
     * @param view  the membership view the trees start for (its peers and replica sets)
     * @param store this node's store; write to it only through {@link #tracked()}
     */
    HashTrees(ExchangePeers view, Store store) {
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
    long builtNanos() {
        gate.readLock().lock();
        try {
            return builtNanos;
        } finally {
            gate.readLock().unlock();
        }
    }

    private int index(String peer) {
        int i = shared.indexOf(peer);
        if (i < 0) throw new IllegalArgumentException("not a peer: " + peer);
        return i;
    }

    // ------------------------------------------------------------ builds (TreeBuild, under gate's write side)

    /** A new build for the current view (under gate's write side): writes are tracked from now on. */
    synchronized TreeBuild.Progress beginBuild() {
        if (building != null) throw new IllegalStateException("a build is under way");
        TreeBuild.Progress p = new TreeBuild.Progress(shared, drift);
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
        builtNanos = System.nanoTime();
        return true;
    }

    synchronized void abandonBuild(TreeBuild.Progress p) {
        if (building == p) building = null;
    }

    /**
     * Folds a key's version (its hash; {@code present}: not none) into build {@code p}'s trees,
     * by the replica sets of the view {@code p} is for.
     */
    static void fold(TreeBuild.Progress p, byte[] key, long hash, boolean present) {
        int[] peers = p.shared.of(key);
        if (peers.length == 0) return;
        int leaf = MerkleTree.leafOf(key);
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

    /** Writes {@code entries} through to the store, updating the trees by what each key held before. */
    void write(List<Entry> entries) throws IOException {
        gate.readLock().lock();
        try {
            if (!tracking) {
                inner.write(entries);
            } else if (entries.size() == 1) {
                writeOne(entries);
            } else {
                BatchKeys keys = new BatchKeys(entries, STRIPES);
                int[] held = keys.stripes;
                for (int s : held) stripes[s].lock();
                try {
                    writeTracked(entries, keys);
                } finally {
                    for (int i = held.length - 1; i >= 0; i--) stripes[held[i]].unlock();
                }
            }
        } finally {
            gate.readLock().unlock();
        }
    }

    /**
     * {@link #writeTracked} for a batch of one entry, the common write (a client's, a replica's),
     * without its maps: read the key's stamp, write, update by what changed, under its stripe.
     */
    private void writeOne(List<Entry> one) throws IOException {
        Entry e = one.get(0);
        byte[] key = e.key();
        long keyHash = MerkleTree.keyHash(key);
        ReentrantLock stripe = stripes[(int) keyHash & (STRIPES - 1)];
        stripe.lock();
        try {
            Stamp old = inner.stamp(key);
            try {
                inner.write(one);
            } catch (IOException | RuntimeException | Error x) {
                readBack(key, keyHash, old); // it may be written: count what the key holds now
                throw x;
            }
            if (old != null && old.timestamp() == e.timestamp()) {
                readBack(key, keyHash, old); // a tie: see writeTracked
            } else if (old == null || e.timestamp() > old.timestamp()) {
                changed(key, keyHash, old, Stamp.of(e));
            }
        } finally {
            stripe.unlock();
        }
    }

    /** Updates the trees from {@code old} to what the store holds for the key now; drifted if that cannot be read. */
    private void readBack(byte[] key, long keyHash, Stamp old) {
        try {
            changed(key, keyHash, old, inner.stamp(key));
        } catch (IOException | RuntimeException e) {
            drifted();
        }
    }

    /** Under the stripes of every key ({@code keys}: the batch's): read, write, then update by what changed. */
    private void writeTracked(List<Entry> entries, BatchKeys keys) throws IOException {
        int n = entries.size();
        // current[f], for a key's first entry f: the version the trees hold for the key
        Stamp[] current = new Stamp[n];
        for (int i = 0; i < n; i++) {
            if (keys.first[i] == i) current[i] = inner.stamp(entries.get(i).key());
        }
        try {
            inner.write(entries);
        } catch (IOException | RuntimeException | Error e) {
            // Some of them may be written: count what each key holds now.
            try {
                for (int i = 0; i < n; i++) {
                    if (keys.first[i] != i) continue;
                    byte[] key = entries.get(i).key();
                    changed(key, keys.hashes[i], current[i], inner.stamp(key));
                }
            } catch (IOException | RuntimeException again) {
                drifted();
            }
            throw e;
        }
        // tiedFrom[f]: the version the trees hold for a key whose entries tied with it; null: no tie
        Stamp[] tiedFrom = null;
        for (int i = 0; i < n; i++) {
            Entry e = entries.get(i);
            int f = keys.first[i];
            Stamp old = current[f];
            if (old != null && old.timestamp() == e.timestamp()) {
                // A tie is broken by the stored value, which a stamp does not carry (nor a read of
                // an expired one show): what the store holds now is read back below (rare: one
                // timestamp is one write). The trees hold the version before the batch's first tie.
                if (tiedFrom == null) tiedFrom = new Stamp[n];
                if (tiedFrom[f] == null) tiedFrom[f] = old;
            } else if (old == null || e.timestamp() > old.timestamp()) {
                Stamp now = Stamp.of(e);
                if (tiedFrom == null || tiedFrom[f] == null) changed(e.key(), keys.hashes[i], old, now);
                current[f] = now;
            }
        }
        if (tiedFrom == null) return;
        for (int f = 0; f < n; f++) {
            if (tiedFrom[f] != null) readBack(entries.get(f).key(), keys.hashes[f], tiedFrom[f]);
        }
    }

    /**
     * The key's version went from {@code old} to {@code now} (either null: none); under its stripe
     * and the read side. {@code keyHash}: {@link MerkleTree#keyHash} of the key.
     */
    private void changed(byte[] key, long keyHash, Stamp old, Stamp now) {
        long delta = MerkleTree.hashOf(key, old) ^ MerkleTree.hashOf(key, now);
        long count = (now == null ? 0 : 1) - (old == null ? 0 : 1);
        if (delta == 0 && count == 0) return;
        int[] peers = shared.of(key);
        if (peers.length == 0) return;
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
