package dht.node.cluster;

import dht.storage.Entry;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link HashTrees#write}: a tracked write that may wait for its locks and read the store. Under
 * the gate's read side and the stripes of its keys it learns what each key held (from {@link
 * HeldVersions}, else a {@link dht.storage.Store#storedStamp}), writes, then updates the trees by
 * what changed; a write that fails, or ties a timestamp, is read back. Invariant: {@link
 * HashTrees}'s, as no two writes of one key interleave between their read and their update.
 */
final class WaitingTreeWrites {
    private final HashTrees trees;

    WaitingTreeWrites(HashTrees trees) {
        this.trees = trees;
    }

    /** Writes {@code entries} through to the store, updating the trees by what each key held before. */
    void write(List<Entry> entries) throws IOException {
        trees.gate.readLock().lock();
        try {
            if (!trees.tracking) {
                trees.inner.write(entries);
            } else if (entries.size() == 1) {
                writeOne(entries);
            } else {
                BatchKeys keys = new BatchKeys(entries, HashTrees.STRIPES);
                int[] held = keys.stripes;
                for (int s : held) trees.stripes[s].lock();
                try {
                    writeTracked(entries, keys);
                } finally {
                    for (int i = held.length - 1; i >= 0; i--) trees.stripes[held[i]].unlock();
                }
            }
        } finally {
            trees.gate.readLock().unlock();
        }
        if (trees.versions.wantsToGrow()) {
            trees.gate.writeLock().lock();
            try {
                trees.versions.grow();
            } finally {
                trees.gate.writeLock().unlock();
            }
        }
    }

    /**
     * {@link #writeTracked} for a batch of one entry, the common write (a client's, a replica's),
     * without its arrays: learn what the key holds, write, update by what changed, under its stripe.
     */
    private void writeOne(List<Entry> one) throws IOException {
        Entry e = one.get(0);
        byte[] key = e.key();
        long keyHash = MerkleTree.keyHash(key);
        ReentrantLock stripe = trees.stripes[(int) keyHash & (HashTrees.STRIPES - 1)];
        stripe.lock();
        try {
            long old = held(key, keyHash);
            try {
                trees.inner.write(one);
            } catch (IOException | RuntimeException | Error x) {
                trees.readBack(key, keyHash, old); // it may be written: count what the key holds now
                throw x;
            }
            long now = HeldVersions.wordOf(e);
            if (HashTrees.mustReadBack(old, now, e.timestamp())) {
                trees.readBack(key, keyHash, old); // a tie (see writeTracked), or a timestamp a word cannot hold
            } else if (old == HeldVersions.NONE || e.timestamp() > HeldVersions.timestamp(old)) {
                trees.changed(key, keyHash, old, now);
            }
        } finally {
            stripe.unlock();
        }
    }

    /**
     * The word of what the trees hold for the key (under its stripe and the read side): from
     * {@link #versions} when it knows, else read from the store. {@link HeldVersions#UNKNOWN} when
     * the store's version has a timestamp no word holds.
     */
    private long held(byte[] key, long keyHash) throws IOException {
        long w = trees.heldKnown(keyHash);
        return w != HeldVersions.UNKNOWN ? w : HeldVersions.word(trees.inner.storedStamp(key));
    }

    /** Under the stripes of every key ({@code keys}: the batch's): learn, write, then update by what changed. */
    private void writeTracked(List<Entry> entries, BatchKeys keys) throws IOException {
        int n = entries.size();
        // current[f], for a key's first entry f: the word of the version the trees hold for the key
        long[] current = new long[n];
        for (int i = 0; i < n; i++) {
            if (keys.first[i] == i) current[i] = held(entries.get(i).key(), keys.hashes[i]);
        }
        try {
            trees.inner.write(entries);
        } catch (IOException | RuntimeException | Error e) {
            // Some of them may be written: count what each key holds now.
            for (int i = 0; i < n; i++) {
                if (keys.first[i] == i) trees.readBack(entries.get(i).key(), keys.hashes[i], current[i]);
            }
            throw e;
        }
        // tied[f]: a key whose entries tied with what it held, or whose words are not known: its
        // trees keep current[f] as it was before that entry, and it is read back below (rare: one
        // timestamp is one write).
        boolean[] tied = null;
        for (int i = 0; i < n; i++) {
            Entry e = entries.get(i);
            int f = keys.first[i];
            if (tied != null && tied[f]) continue;
            long old = current[f];
            long now = HeldVersions.wordOf(e);
            if (HashTrees.mustReadBack(old, now, e.timestamp())) {
                // A tie is broken by the stored value, which a word does not carry (nor a read of
                // an expired one show): what the store holds now is read back below.
                if (tied == null) tied = new boolean[n];
                tied[f] = true;
            } else if (old == HeldVersions.NONE || e.timestamp() > HeldVersions.timestamp(old)) {
                trees.changed(e.key(), keys.hashes[i], old, now);
                current[f] = now;
            }
        }
        if (tied == null) return;
        for (int f = 0; f < n; f++) {
            if (tied[f]) trees.readBack(entries.get(f).key(), keys.hashes[f], current[f]);
        }
    }
}
