package dht.node;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.Store;
import dht.storage.StoreStats;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Wraps a store so tests can hold writes: while {@link #gate} is closed, every put/delete signals
 * {@link #entered} and waits (bounded) until the gate opens. Reads pass through.
 */
class DelegatingStore implements Store {
    final Store inner;
    final Semaphore entered = new Semaphore(0);
    /** The number of entries of each {@link #write(java.util.List)} call, in the order made. */
    final java.util.List<Integer> batchSizes = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    /** The timestamps of the entries {@link #write(java.util.List)} received, in the order received. */
    final java.util.List<Long> writtenTimestamps = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    volatile CountDownLatch gate = new CountDownLatch(0);

    DelegatingStore(Store inner) {
        this.inner = inner;
    }

    void hold() {
        gate = new CountDownLatch(1);
    }

    void open() {
        gate.countDown();
    }

    private void pass() throws IOException {
        pass(1);
    }

    /** Counts {@code writes} entries in at once: a batch of writes (one group commit) waits at the gate as one. */
    private void pass(int writes) throws IOException {
        entered.release(writes);
        try {
            if (!gate.await(30, TimeUnit.SECONDS)) throw new IOException("test gate never opened");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted at the test gate");
        }
    }

    @Override
    public void put(byte[] key, byte[] value, long timestamp) throws IOException {
        pass();
        inner.put(key, value, timestamp);
    }

    @Override
    public void delete(byte[] key, long timestamp) throws IOException {
        pass();
        inner.delete(key, timestamp);
    }

    /** One pass of the gate per entry, as separate writes would take, then the store's own batch path. */
    @Override
    public void write(java.util.List<dht.storage.Entry> entries) throws IOException {
        synchronized (writtenTimestamps) {
            batchSizes.add(entries.size());
            for (dht.storage.Entry e : entries) writtenTimestamps.add(e.timestamp());
        }
        pass(entries.size());
        inner.write(entries);
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        return inner.get(key);
    }

    @Override
    public dht.storage.Stamp stamp(byte[] key) throws IOException {
        return inner.stamp(key);
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] from, byte[] to) throws IOException {
        return inner.scan(from, to);
    }

    /** Not held at the gate: a cleanup runs beside held writes, as it would beside slow ones. */
    @Override
    public long purge(java.util.function.Predicate<Entry> drop) throws IOException {
        return inner.purge(drop);
    }

    @Override
    public void flush() throws IOException {
        inner.flush();
    }

    @Override
    public StoreStats stats() {
        return inner.stats();
    }

    @Override
    public void close() throws IOException {
        inner.close();
    }
}
