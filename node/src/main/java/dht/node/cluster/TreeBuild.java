package dht.node.cluster;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.Stamp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Builds {@link HashTrees}' trees by one paced scan of the store while writes go on, in chunks of
 * keys in key order, each read by a scan of its own opened after the previous chunk was committed.
 *
 * <p>Invariant: a key's contribution is its version at the instant the build's cursor passes it
 * (the chunk's commit, under the gate's write side, so no write is half done), and from then on
 * each write of it updates the new trees as it does the live ones: so the trees equal a scan at
 * the build's end. A write to a key not yet passed marks it dirty: the scan of its chunk may have
 * read it before or after, so at the commit a dirty key of the chunk is read again (few: only the
 * writes that met one chunk's read), and the rest of the dirty keys are dropped, as the next
 * chunk's scan, opened after the commit, sees their writes.
 *
 * <p>A build is for the view the trees had when it began; a {@link HashTrees#retarget} drops it,
 * and the run stops at its next commit without making its trees live.
 */
final class TreeBuild {
    private static final int CHUNK_ENTRIES = 4_096;
    private static final long CHUNK_BYTES = 1L << 20;
    private static final byte[] FIRST = new byte[0];

    private TreeBuild() {}

    /** A build's state, shared with the writers (under the gate). */
    static final class Progress {
        /** The view it builds for, and its peers by index. */
        final ExchangePeers view;
        final SharedPeers shared;
        final long driftAtStart;
        /** {@link HeldVersions#losses()} when it began: it makes the held versions complete unless a key was lost since. */
        final long heldLossesAtStart;
        final long[][] trees;
        final long[] keys;
        /** Keys before it have been passed; null: every key. Changed under the gate's write side. */
        byte[] cursor = FIRST;
        /** Keys not yet passed written since the current chunk's scan may have opened. */
        Set<ByteBuffer> dirty = ConcurrentHashMap.newKeySet();

        Progress(SharedPeers shared, long driftAtStart, long heldLossesAtStart) {
            this.view = shared.view;
            this.shared = shared;
            this.driftAtStart = driftAtStart;
            this.heldLossesAtStart = heldLossesAtStart;
            int peers = view.peers().size();
            this.trees = new long[peers][MerkleTree.LEAVES];
            this.keys = new long[peers];
        }

        boolean passed(byte[] key) {
            return cursor == null || Arrays.compareUnsigned(key, cursor) < 0;
        }
    }

    /** The build was dropped by a retarget: the run stops. */
    private static final class Dropped extends Exception {
        Dropped() {
            super("the trees moved to another view", null, false, false);
        }
    }

    /**
     * Scans the store and makes the result the trees; spends {@code rate} for what it reads.
     * Returns false when a retarget dropped the build (the trees are left not exact). Throws
     * InterruptedException when {@code stop} turns true; one build at a time per trees.
     */
    static boolean run(HashTrees t, ByteRate rate, BooleanSupplier stop) throws IOException, InterruptedException {
        Progress p;
        t.gate.writeLock().lock();
        try {
            p = t.beginBuild();
        } finally {
            t.gate.writeLock().unlock();
        }
        boolean done = false;
        try {
            byte[] from = FIRST;
            while (from != null) {
                if (stop.getAsBoolean()) throw new InterruptedException("closed");
                from = chunk(t, p, from, rate);
            }
            t.gate.writeLock().lock();
            try {
                done = t.completeBuild(p);
                return done;
            } finally {
                t.gate.writeLock().unlock();
            }
        } catch (Dropped e) {
            return false;
        } finally {
            if (!done) {
                t.gate.writeLock().lock();
                try {
                    t.abandonBuild(p);
                } finally {
                    t.gate.writeLock().unlock();
                }
            }
        }
    }

    /** Reads, commits and folds the chunk starting at {@code from}; returns where the next starts, or null at the end. */
    private static byte[] chunk(HashTrees t, Progress p, byte[] from, ByteRate rate)
            throws IOException, InterruptedException, Dropped {
        List<byte[]> keys = new ArrayList<>();
        List<Long> keyHashes = new ArrayList<>();
        List<Long> hashes = new ArrayList<>();
        List<Long> words = new ArrayList<>();
        List<Integer> copies = new ArrayList<>();
        byte[] next = null;
        long bytes = 0;
        try (CloseableIterator<Entry> it = t.inner.storedScan(from, null)) {
            while (it.hasNext()) {
                Entry e = it.next();
                long keyHash = MerkleTree.keyHash(e.key());
                keys.add(e.key());
                keyHashes.add(keyHash);
                hashes.add(MerkleTree.hashOf(keyHash, e));
                words.add(HeldVersions.wordOf(e));
                copies.add(HeldVersions.treeCopies(e));
                bytes += AntiEntropy.wireSize(e);
                if (keys.size() >= CHUNK_ENTRIES || bytes >= CHUNK_BYTES) {
                    if (it.hasNext()) next = Arrays.copyOf(e.key(), e.key().length + 1);
                    break;
                }
            }
        }
        rate.spend(bytes);
        Set<ByteBuffer> dirty;
        t.gate.writeLock().lock();
        try {
            if (!t.current(p)) throw new Dropped();
            dirty = p.dirty;
            p.dirty = ConcurrentHashMap.newKeySet();
            for (ByteBuffer d : dirty) {
                byte[] key = d.array();
                if (Arrays.compareUnsigned(key, from) < 0 || next != null && Arrays.compareUnsigned(key, next) >= 0) continue;
                Stamp now = t.inner.storedStamp(key);
                long keyHash = MerkleTree.keyHash(key);
                HashTrees.fold(p, key, keyHash, MerkleTree.hashOf(keyHash, now), now != null, HeldVersions.treeCopies(now));
                t.versions.grow();
                t.versions.put(keyHash, HeldVersions.word(now));
            }
            // Each key of the chunk holds, at this instant, what the scan read (or, if dirty, what
            // was read just above): with no writer running, its word is set to that.
            for (int i = 0; i < keys.size(); i++) {
                byte[] key = keys.get(i);
                if (!dirty.isEmpty() && dirty.contains(ByteBuffer.wrap(key))) continue;
                t.versions.grow();
                t.versions.put(keyHashes.get(i), words.get(i));
            }
            p.cursor = next;
        } finally {
            t.gate.writeLock().unlock();
        }
        for (int i = 0; i < keys.size(); i++) {
            byte[] key = keys.get(i);
            if (!dirty.isEmpty() && dirty.contains(ByteBuffer.wrap(key))) continue;
            HashTrees.fold(p, key, keyHashes.get(i), hashes.get(i), true, copies.get(i));
        }
        return next;
    }
}
