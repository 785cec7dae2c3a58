package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.ForwardingStore;
import dht.storage.Store;
import java.io.IOException;
import java.util.List;
import java.util.function.Predicate;

/**
 * The store as every path writes it on a node started alone that another node may join later
 * (docs/notes/membership-status.md, "Growing a one-node cluster"). While the node is alone a write
 * goes straight to the engine, past the hash trees' gate and the late-write reports, for the price
 * of two reads of a volatile flag; from {@link #grow()} on, every write goes the way a cluster
 * node's does ({@link HashTrees#tracked()}). Reads go straight to the engine, a purge the grown way.
 * A node that grew never goes back (the grown way is right for any size).
 *
 * <p>Invariant: a write that reaches the engine after a hash-tree build began went the grown way,
 * or the trees were marked drifted after it reached the engine (so no snapshot is served until a
 * build that sees it completes). Why: {@link #grow()} is called before a membership naming another
 * node is used, so before anti-entropy has a peer to build trees for (and before the purge horizon
 * counts one). A direct write reads the flag again once the engine has it; the flag is volatile, so
 * both reads and grow()'s write are totally ordered: a second read that still says alone came
 * before grow(), so the write is in the engine before any build's scan; one that says grown marks
 * the trees drifted. Nor does a direct write skip a late-write report: {@link LateWriteReportingStore}
 * judges a write by what holds when it starts, and while alone the horizon has no peer to be late for.
 */
final class LoneNodeStore extends ForwardingStore {
    private final HashTrees trees;
    private final Store grown;
    private volatile boolean alone = true;

    /**
     * @param engine the store below every wrapper, written directly while alone
     * @param trees  the hash trees over the store as a cluster node writes it
     */
    LoneNodeStore(Store engine, HashTrees trees) {
        super(engine);
        this.trees = trees;
        this.grown = trees.tracked();
    }

    /** Whether no other node has been named yet. */
    boolean alone() {
        return alone;
    }

    /** Another node is about to be named by the membership: every write from now on goes the grown way. */
    void grow() {
        alone = false;
    }

    @Override
    public void put(byte[] key, byte[] value, long timestamp) throws IOException {
        if (!alone) {
            grown.put(key, value, timestamp);
            return;
        }
        try {
            inner.put(key, value, timestamp);
        } finally {
            if (!alone) trees.forget(List.of(Entry.value(key, value, timestamp)));
        }
    }

    @Override
    public void delete(byte[] key, long timestamp) throws IOException {
        if (!alone) {
            grown.delete(key, timestamp);
            return;
        }
        try {
            inner.delete(key, timestamp);
        } finally {
            if (!alone) trees.forget(List.of(Entry.tombstone(key, timestamp)));
        }
    }

    @Override
    public void write(List<Entry> entries) throws IOException {
        if (!alone) {
            grown.write(entries);
            return;
        }
        try {
            inner.write(entries);
        } finally {
            if (!alone) trees.forget(entries);
        }
    }

    /** As {@link #write}, declining where the store it would go to declines. */
    @Override
    public boolean tryWrite(List<Entry> entries) throws IOException {
        if (!alone) return grown.tryWrite(entries);
        try {
            return inner.tryWrite(entries);
        } finally {
            if (!alone) trees.forget(entries);
        }
    }

    @Override
    public long purge(Predicate<Entry> drop) throws IOException {
        return grown.purge(drop);
    }
}
