package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.ForwardingStore;
import dht.storage.Store;
import java.io.IOException;
import java.util.List;

/**
 * A node's store as every cluster path writes it (coordinator, replica calls, hints, read repair,
 * anti-entropy, rebalancing), so that {@link HashTrees} follow each version it takes. A purge
 * removes keys without telling which versions went: the trees count as drifted around it, until a
 * new build. Reads and everything else pass through.
 */
final class TreeTrackingStore extends ForwardingStore {
    private final HashTrees trees;

    TreeTrackingStore(Store inner, HashTrees trees) {
        super(inner);
        this.trees = trees;
    }

    @Override
    public void put(byte[] key, byte[] value, long timestamp) throws IOException {
        trees.write(List.of(Entry.value(key, value, timestamp)));
    }

    @Override
    public void delete(byte[] key, long timestamp) throws IOException {
        trees.write(List.of(Entry.tombstone(key, timestamp)));
    }

    @Override
    public void write(List<Entry> entries) throws IOException {
        trees.write(entries);
    }

    @Override
    public boolean tryWrite(List<Entry> entries) throws IOException {
        return trees.tryWrite(entries);
    }

    @Override
    public long purge(java.util.function.Predicate<dht.storage.Entry> drop) throws IOException {
        trees.forgetAll();
        try {
            return inner.purge(drop);
        } finally {
            trees.forgetAll(); // nor is a build that overlapped the purge, nor a word taken during it
        }
    }
}
