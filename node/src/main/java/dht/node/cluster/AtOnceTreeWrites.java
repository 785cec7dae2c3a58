package dht.node.cluster;

import dht.storage.Entry;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link HashTrees#tryWrite}: a write made by a thread that must not wait (an event loop, see
 * {@code StorageDispatcher}), tracked as {@link HashTrees#write} tracks it, or declined with
 * nothing written. It never blocks: the gate's read side and the keys' stripes are taken with
 * tryLock, the store must take the write at once ({@link dht.storage.Store#tryWrite}), and what
 * each key held must be known from {@link HashTrees#versions} alone, with no read back due after
 * the write (a tie of timestamps) and no growth of that table due. A batch with a key twice, or two
 * keys of one hash, declines. Invariant: the same as {@link HashTrees}'s, as the same locks are held
 * around the same read-write-update.
 */
final class AtOnceTreeWrites {
    private final HashTrees trees;

    AtOnceTreeWrites(HashTrees trees) {
        this.trees = trees;
    }

    /** {@link HashTrees#write} if nothing in it waits; else false, nothing written. */
    boolean tryWrite(List<Entry> entries) throws IOException {
        if (!trees.gate.readLock().tryLock()) return false;
        try {
            if (!trees.tracking) return trees.inner.tryWrite(entries);
            if (trees.versions.wantsToGrow()) return false; // a write that may wait grows it
            return entries.size() == 1 ? tryWriteOne(entries) : tryWriteBatch(entries);
        } finally {
            trees.gate.readLock().unlock();
        }
    }

    /** One entry's write if nothing in it waits or reads the store; false, nothing written, if not. */
    private boolean tryWriteOne(List<Entry> one) throws IOException {
        Entry e = one.get(0);
        long keyHash = MerkleTree.keyHash(e.key());
        ReentrantLock stripe = trees.stripes[(int) keyHash & (HashTrees.STRIPES - 1)];
        if (!stripe.tryLock()) return false;
        try {
            long old = heldWithoutReading(e, keyHash);
            return old != HeldVersions.UNKNOWN && tryWriteKnown(one, new long[] {keyHash}, new long[] {old});
        } finally {
            stripe.unlock();
        }
    }

    /** A batch of distinct keys, if nothing in its write waits or reads the store; else false. */
    private boolean tryWriteBatch(List<Entry> entries) throws IOException {
        BatchKeys keys = new BatchKeys(entries, HashTrees.STRIPES);
        int n = entries.size();
        long[] sorted = keys.hashes.clone();
        Arrays.sort(sorted);
        for (int i = 1; i < n; i++) if (sorted[i] == sorted[i - 1]) return false;
        int[] held = keys.stripes;
        int locked = 0;
        try {
            while (locked < held.length && trees.stripes[held[locked]].tryLock()) locked++;
            if (locked < held.length) return false;
            long[] olds = new long[n];
            for (int i = 0; i < n; i++) {
                olds[i] = heldWithoutReading(entries.get(i), keys.hashes[i]);
                if (olds[i] == HeldVersions.UNKNOWN) return false;
            }
            return tryWriteKnown(entries, keys.hashes, olds);
        } finally {
            for (int i = locked - 1; i >= 0; i--) trees.stripes[held[i]].unlock();
        }
    }

    /**
     * Under the stripes: what the trees hold for {@code e}'s key, from {@link HashTrees#versions}
     * alone, or {@link HeldVersions#UNKNOWN} when that would take a read of the store, before or
     * after the write ({@link HashTrees#mustReadBack}).
     */
    private long heldWithoutReading(Entry e, long keyHash) {
        long old = trees.heldKnown(keyHash);
        return HashTrees.mustReadBack(old, HeldVersions.wordOf(e), e.timestamp()) ? HeldVersions.UNKNOWN : old;
    }

    /** Under the stripes, each key's old word known: the write, if the store takes it at once, then the trees. */
    private boolean tryWriteKnown(List<Entry> entries, long[] hashes, long[] olds) throws IOException {
        try {
            if (!trees.inner.tryWrite(entries)) return false;
        } catch (IOException | RuntimeException | Error x) {
            // some may be written: count what each key holds now
            for (int i = 0; i < entries.size(); i++) trees.readBack(entries.get(i).key(), hashes[i], olds[i]);
            throw x;
        }
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (olds[i] == HeldVersions.NONE || e.timestamp() > HeldVersions.timestamp(olds[i])) {
                trees.changed(e.key(), hashes[i], olds[i], HeldVersions.wordOf(e));
            }
        }
        return true;
    }
}
