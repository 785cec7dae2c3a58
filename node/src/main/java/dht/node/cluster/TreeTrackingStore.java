package dht.node.cluster;

import dht.storage.CloseableIterator;
import dht.storage.EngineCounters;
import dht.storage.Entry;
import dht.storage.ReadBudget;
import dht.storage.Store;
import dht.storage.StoreStats;
import java.io.IOException;
import java.util.List;

/**
 * A node's store as every cluster path writes it (coordinator, replica calls, hints, read repair,
 * anti-entropy, rebalancing), so that {@link HashTrees} follow each version it takes. A purge
 * removes keys without telling which versions went: the trees count as drifted around it, until a
 * new build. Reads and everything else pass through.
 */
final class TreeTrackingStore implements Store {
    private final Store inner;
    private final HashTrees trees;

    TreeTrackingStore(Store inner, HashTrees trees) {
        this.inner = inner;
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
    public Entry get(byte[] key) throws IOException {
        return inner.get(key);
    }

    @Override
    public Entry get(byte[] key, ReadBudget budget) throws IOException {
        return inner.get(key, budget);
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] from, byte[] to) throws IOException {
        return inner.scan(from, to);
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] from, byte[] to, ReadBudget budget) throws IOException {
        return inner.scan(from, to, budget);
    }

    @Override
    public long purge(java.util.function.Predicate<byte[]> drop) throws IOException {
        trees.drifted();
        try {
            return inner.purge(drop);
        } finally {
            trees.drifted(); // a build that overlapped the purge is not exact either
        }
    }

    @Override
    public StoreStats stats() {
        return inner.stats();
    }

    @Override
    public EngineCounters counters() {
        return inner.counters();
    }

    @Override
    public void flush() throws IOException {
        inner.flush();
    }

    @Override
    public void compact() throws IOException {
        inner.compact();
    }

    @Override
    public void close() throws IOException {
        inner.close();
    }
}
