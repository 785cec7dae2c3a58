package dht.node.cluster;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.ReadsWithoutWaiting;
import dht.storage.Store;
import dht.storage.StoreStats;
import dht.storage.WouldWaitException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/** Test double: an in-memory store with the engine's last-write-wins rule; can be made to fail. */
final class MemoryStore implements Store {
    final ConcurrentSkipListMap<byte[], Entry> map = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
    volatile boolean failing;
    /** Point reads (a {@code stamp} is one) so far. */
    final java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();

    @Override
    public void put(byte[] key, byte[] value, long timestamp) throws IOException {
        apply(Entry.value(key, value, timestamp));
    }

    /** How many {@link #delete} calls were made. */
    final java.util.concurrent.atomic.AtomicLong deleteCalls = new java.util.concurrent.atomic.AtomicLong();

    @Override
    public void delete(byte[] key, long timestamp) throws IOException {
        deleteCalls.incrementAndGet();
        apply(Entry.tombstone(key, timestamp));
    }

    /** The size of every {@link #write(java.util.List)} call, in order. */
    final java.util.List<Integer> writeCalls = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    /** A key this store refuses as the engine refuses an entry too large: IllegalArgumentException, nothing written. */
    volatile String refusedKey;

    @Override
    public void write(java.util.List<Entry> entries) throws IOException {
        writeCalls.add(entries.size());
        for (Entry e : entries) {
            if (new String(e.key(), java.nio.charset.StandardCharsets.UTF_8).equals(refusedKey)) {
                throw new IllegalArgumentException("entry too large");
            }
        }
        for (Entry e : entries) apply(e);
        if (failAfterWriting) {
            failing = readsFailAfter;
            throw new IOException("injected failure after the write");
        }
    }

    /** Whether {@link #tryWrite} writes (an engine that can commit at once), and the sizes of the calls it took. */
    volatile boolean takesWritesAtOnce;
    final java.util.List<Integer> tryWriteCalls = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    @Override
    public boolean tryWrite(java.util.List<Entry> entries) throws IOException {
        if (!takesWritesAtOnce) return false;
        tryWriteCalls.add(entries.size());
        if (failing) throw new IOException("injected failure");
        for (Entry e : entries) apply(e);
        return true;
    }

    /** What {@link #readsWithoutWaiting} says (a store whose data is all in memory). */
    volatile boolean readsAtOnce;

    @Override
    public boolean readsWithoutWaiting() {
        return readsAtOnce;
    }

    /** Whether {@link #write} fails once it has written everything (a lost acknowledgement) ... */
    volatile boolean failAfterWriting;
    /** ... and makes every call fail from then on. */
    volatile boolean readsFailAfter;

    private void apply(Entry e) throws IOException {
        if (failing) throw new IOException("injected failure");
        // A borrowed value is the caller's until the write returns: keep a copy, as the engine does.
        Entry kept = e.owned();
        map.compute(e.key(), (k, old) -> kept.supersedes(old) ? kept : old);
    }

    /** Keys whose block is out of memory: a read of one in ReadsWithoutWaiting's scope says it would wait. */
    final Set<String> cold = ConcurrentHashMap.newKeySet();

    @Override
    public Entry get(byte[] key) throws IOException {
        if (ReadsWithoutWaiting.active() && cold.contains(new String(key, StandardCharsets.UTF_8))) throw WouldWaitException.INSTANCE;
        reads.incrementAndGet();
        if (failing) throw new IOException("injected failure");
        return map.get(key);
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] from, byte[] to) throws IOException {
        if (failing) throw new IOException("injected failure");
        Iterator<Entry> it = (to == null ? map.tailMap(from, true) : map.subMap(from, true, to, false)).values().iterator();
        return new CloseableIterator<>() {
            @Override public boolean hasNext() { return it.hasNext(); }
            @Override public Entry next() { return it.next(); }
            @Override public void close() { }
        };
    }

    @Override
    public long purge(java.util.function.Predicate<dht.storage.Entry> drop) {
        long n = 0;
        for (Entry e : map.values()) {
            if (drop.test(e) && map.remove(e.key()) != null) n++;
        }
        return n;
    }

    @Override
    public StoreStats stats() {
        return new StoreStats(0, 0, 0, 0, 0, 0, 0, 0, Long.MIN_VALUE); // the clock's start reads newestTimestamp
    }

    @Override
    public void close() {
    }
}
