package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.Store;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;

/**
 * Anti-entropy's hash trees, kept up to date on write (docs/cluster.md, "Anti-entropy"): one
 * {@link MerkleTree}'s leaves per peer, over the keys whose replica set holds this node and that
 * peer. Built once by a paced scan ({@link TreeBuild}), then every version the store takes through
 * {@link #tracked()} (client, replica, hint, repair and anti-entropy writes alike) updates them:
 * {@code leaf ^= hash(old) ^ hash(new)}, where {@code old} is what the store held for the key,
 * read just before the write (the engine's last-write-wins check does not tell what it replaced).
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
 * <p>Until the first build starts, writes pass through untouched (anti-entropy off everywhere
 * costs nothing); from then on each tracked write costs a point read of its key.
 */
final class HashTrees {
    private static final int STRIPES = 1 << 14;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    final String self;
    final List<String> peers;
    private final Map<String, Integer> peerIndex = new HashMap<>();
    private final Placement placement;
    private final int replicas;
    final Store inner;
    private final Store tracked;
    /** Tracked writes take the read side for their whole read-write-update; snapshots and build steps the write side. */
    final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

    // Guarded by gate: changed under its write side, read under either.
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
     * @param self      this node
     * @param nodes     every node, self included; the others are the peers
     * @param placement the placement whose first {@code replicas} nodes are a key's replica set
     * @param store     this node's store; write to it only through {@link #tracked()}
     */
    HashTrees(String self, List<String> nodes, Placement placement, int replicas, Store store) {
        this.self = self;
        this.peers = nodes.stream().filter(n -> !n.equals(self)).toList();
        for (int i = 0; i < peers.size(); i++) peerIndex.put(peers.get(i), i);
        this.placement = placement;
        this.replicas = replicas;
        this.inner = store;
        for (int i = 0; i < STRIPES; i++) stripes[i] = new ReentrantLock();
        this.tracked = new TreeTrackingStore(store, this);
    }

    /** The store as every write path must use it, so that the trees follow each version it takes. */
    Store tracked() {
        return tracked;
    }

    /** One peer's tree as of one instant, with how many keys it covers; {@code takenMillis} by the clock given. */
    record Snapshot(MerkleTree tree, long keys, long takenMillis) {
    }

    /**
     * {@code peer}'s tree now, copied while no tracked write is under way, or null while the trees
     * are not exact (never built, or being rebuilt after they may have drifted).
     */
    Snapshot snapshot(String peer, LongSupplier clockMillis) {
        int i = index(peer);
        gate.writeLock().lock();
        try {
            if (live == null || !exact) return null;
            return new Snapshot(MerkleTree.of(live[i]), liveKeys[i], clockMillis.getAsLong());
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
        Integer i = peerIndex.get(peer);
        if (i == null) throw new IllegalArgumentException("not a peer: " + peer);
        return i;
    }

    // ------------------------------------------------------------ builds (TreeBuild, under gate's write side)

    /** Starts tracking writes for a new build; returns the drift count it starts from. */
    synchronized long beginBuild(TreeBuild.Progress p) {
        if (building != null) throw new IllegalStateException("a build is under way");
        tracking = true;
        building = p;
        return drift;
    }

    /** The build's trees become the live ones: exact unless something drifted since it began. */
    synchronized void completeBuild(TreeBuild.Progress p, long driftAtStart) {
        live = p.trees;
        liveKeys = p.keys;
        building = null;
        exact = drift == driftAtStart;
        builtNanos = System.nanoTime();
    }

    void abandonBuild() {
        building = null;
    }

    /** Folds the version {@code e} (null: none) of a key into {@code trees}, counting it in {@code keys}. */
    void fold(long[][] trees, long[] keys, byte[] key, long hash, boolean present) {
        int[] shared = sharers(key);
        if (shared.length == 0) return;
        int leaf = MerkleTree.leafOf(key);
        for (int i : shared) {
            SLOT.getAndBitwiseXor(trees[i], leaf, hash);
            if (present) SLOT.getAndAdd(keys, i, 1L);
        }
    }

    /** The peers (by index) that share {@code key} with this node: none unless this node is a replica. */
    private int[] sharers(byte[] key) {
        List<String> holders = placement.replicas(key, replicas);
        if (!holders.contains(self)) return new int[0];
        int[] out = new int[holders.size() - 1];
        int n = 0;
        for (String h : holders) {
            Integer i = peerIndex.get(h);
            if (i != null) out[n++] = i;
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
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
                return;
            }
            int[] held = stripesOf(entries);
            for (int s : held) stripes[s].lock();
            try {
                writeTracked(entries);
            } finally {
                for (int i = held.length - 1; i >= 0; i--) stripes[held[i]].unlock();
            }
        } finally {
            gate.readLock().unlock();
        }
    }

    /** The stripes of the entries' keys, sorted and distinct: taken in this order, two batches never deadlock. */
    private static int[] stripesOf(List<Entry> entries) {
        int[] s = new int[entries.size()];
        for (int i = 0; i < s.length; i++) s[i] = (int) MerkleTree.keyHash(entries.get(i).key()) & (STRIPES - 1);
        Arrays.sort(s);
        int n = 0;
        for (int i = 0; i < s.length; i++) if (n == 0 || s[n - 1] != s[i]) s[n++] = s[i];
        return Arrays.copyOf(s, n);
    }

    /** Under the stripes of every key: read, write, then update by what changed. */
    private void writeTracked(List<Entry> entries) throws IOException {
        Map<ByteBuffer, Entry> current = new HashMap<>(entries.size() * 2);
        for (Entry e : entries) {
            ByteBuffer k = ByteBuffer.wrap(e.key());
            if (!current.containsKey(k)) current.put(k, inner.get(e.key()));
        }
        try {
            inner.write(entries);
        } catch (IOException | RuntimeException | Error e) {
            // Some of them may be written: count what each key holds now.
            try {
                for (Map.Entry<ByteBuffer, Entry> c : current.entrySet()) {
                    byte[] key = c.getKey().array();
                    changed(key, c.getValue(), inner.get(key));
                }
            } catch (IOException | RuntimeException again) {
                drifted();
            }
            throw e;
        }
        Map<ByteBuffer, Entry> tied = null;
        for (Entry e : entries) {
            ByteBuffer k = ByteBuffer.wrap(e.key());
            Entry old = current.get(k);
            if (old != null && old.timestamp() == e.timestamp()) {
                // A tie is broken by the stored value, which a read of an expired one does not
                // show: what the store holds now is read back below (rare: one timestamp is one write).
                if (tied == null) tied = new HashMap<>();
                tied.putIfAbsent(k, old);
            } else if (e.supersedes(old)) {
                if (tied == null || !tied.containsKey(k)) changed(e.key(), old, e);
                current.put(k, e);
            }
        }
        if (tied == null) return;
        for (Map.Entry<ByteBuffer, Entry> t : tied.entrySet()) {
            byte[] key = t.getKey().array();
            try {
                // the trees hold the version before the tie: the batch's first tie kept it
                changed(key, t.getValue(), inner.get(key));
            } catch (IOException | RuntimeException e) {
                drifted();
            }
        }
    }

    /** The key's version went from {@code old} to {@code now} (either null: none); under its stripe and the read side. */
    private void changed(byte[] key, Entry old, Entry now) {
        long delta = MerkleTree.hashOf(old) ^ MerkleTree.hashOf(now);
        long count = (now == null ? 0 : 1) - (old == null ? 0 : 1);
        if (delta == 0 && count == 0) return;
        int[] shared = sharers(key);
        if (shared.length == 0) return;
        int leaf = MerkleTree.leafOf(key);
        if (live != null) {
            for (int i : shared) {
                SLOT.getAndBitwiseXor(live[i], leaf, delta);
                if (count != 0) SLOT.getAndAdd(liveKeys, i, count);
            }
        }
        TreeBuild.Progress b = building;
        if (b == null) return;
        if (b.passed(key)) {
            for (int i : shared) {
                SLOT.getAndBitwiseXor(b.trees[i], leaf, delta);
                if (count != 0) SLOT.getAndAdd(b.keys, i, count);
            }
        } else {
            b.dirty.add(ByteBuffer.wrap(key.clone()));
        }
    }
}
