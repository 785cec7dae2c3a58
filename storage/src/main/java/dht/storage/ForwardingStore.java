package dht.storage;

import java.io.IOException;
import java.util.List;
import java.util.function.Predicate;

/**
 * A {@link Store} that hands every call to another one, for wrappers that change a few calls and
 * pass the rest through (as Guava's {@code ForwardingMap}). Invariant: it overrides every method
 * of the interface, defaults included, so a wrapper never falls to a default (a copying scan, a
 * purge that refuses) where the store it wraps does better; {@code ForwardingStoreTest} holds it
 * to that as the interface grows.
 */
public abstract class ForwardingStore implements Store {
    protected final Store inner;

    protected ForwardingStore(Store inner) {
        this.inner = inner;
    }

    @Override
    public void put(byte[] key, byte[] value, long timestamp) throws IOException {
        inner.put(key, value, timestamp);
    }

    @Override
    public void delete(byte[] key, long timestamp) throws IOException {
        inner.delete(key, timestamp);
    }

    @Override
    public void write(List<Entry> entries) throws IOException {
        inner.write(entries);
    }

    /** Passes through: a wrapper that changes {@link #write} must change this too, or decline. */
    @Override
    public boolean tryWrite(List<Entry> entries) throws IOException {
        return inner.tryWrite(entries);
    }

    /** Passes through: a wrapper that changes {@link #get} so that it may wait must decline. */
    @Override
    public boolean readsWithoutWaiting() throws IOException {
        return inner.readsWithoutWaiting();
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        return inner.get(key);
    }

    @Override
    public Stamp stamp(byte[] key) throws IOException {
        return inner.stamp(key);
    }

    @Override
    public Stamp storedStamp(byte[] key) throws IOException {
        return inner.storedStamp(key);
    }

    @Override
    public CloseableIterator<Entry> storedScan(byte[] from, byte[] to) throws IOException {
        return inner.storedScan(from, to);
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
    public long purge(Predicate<Entry> drop) throws IOException {
        return inner.purge(drop);
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
