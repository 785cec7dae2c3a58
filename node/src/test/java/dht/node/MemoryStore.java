package dht.node;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.Store;
import dht.storage.StoreStats;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A test-only Store in memory: last write wins like the engine; counts open iterators so tests can check release. */
class MemoryStore implements Store {
    final ConcurrentSkipListMap<byte[], Entry> map = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
    final AtomicInteger openIterators = new AtomicInteger();
    volatile boolean closed;

    @Override
    public void put(byte[] key, byte[] value, long timestamp) {
        apply(Entry.value(key, value, timestamp));
    }

    @Override
    public void delete(byte[] key, long timestamp) {
        apply(Entry.tombstone(key, timestamp));
    }

    private void apply(Entry e) {
        map.merge(e.key(), e, (old, neu) -> neu.supersedes(old) ? neu : old);
    }

    @Override
    public Entry get(byte[] key) {
        return map.get(key);
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] from, byte[] to) {
        Iterator<Entry> it = (to == null ? map.tailMap(from, true) : map.subMap(from, true, to, false)).values().iterator();
        openIterators.incrementAndGet();
        return new CloseableIterator<>() {
            boolean open = true;

            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Entry next() {
                return it.next();
            }

            @Override
            public void close() {
                if (open) {
                    open = false;
                    openIterators.decrementAndGet();
                }
            }
        };
    }

    @Override
    public StoreStats stats() {
        return new StoreStats(0, 0, map.size(), 0, 0, 0, 0, map.size(), Long.MIN_VALUE);
    }

    @Override
    public void close() {
        closed = true;
    }
}
