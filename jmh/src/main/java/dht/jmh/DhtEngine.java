package dht.jmh;

import dht.storage.CloseableIterator;
import dht.storage.Compression;
import dht.storage.Entry;
import dht.storage.LsmStore;
import dht.storage.StoreOptions;
import dht.storage.StoreStats;
import dht.storage.SyncPolicy;
import java.io.IOException;
import java.nio.file.Path;

/** The dht storage engine with the benchmark settings: log on, fsync periodic (not per write). */
final class DhtEngine implements KvEngine {
    private final LsmStore store;

    DhtEngine(Path dir) throws IOException {
        this(dir, StoreOptions.defaults().blockSize());
    }

    /** With another target size of a table's data block than the default. */
    DhtEngine(Path dir, int blockSize) throws IOException {
        this(dir, blockSize, Compression.NONE);
    }

    /** With another block size and the codec new tables are written with. */
    DhtEngine(Path dir, int blockSize, Compression compression) throws IOException {
        store = LsmStore.open(dir, StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC).withBlockSize(blockSize)
                .withCompression(compression));
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException { store.put(key, value, 1); }

    @Override
    public boolean get(byte[] key) throws IOException {
        Entry e = store.get(key);
        return e != null && !e.isTombstone();
    }

    @Override
    public long scanAll() throws IOException {
        long n = 0;
        try (CloseableIterator<Entry> it = store.scan(new byte[0], null)) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    @Override
    public void compactAll() throws IOException {
        store.flush();
        store.compact();
    }

    @Override
    public void settle() throws IOException {
        store.flush();
        while (true) {
            StoreStats s = store.stats();
            if (s.pendingFlushes() == 0 && s.pendingCompactions() == 0) return;
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for compactions", e);
            }
        }
    }

    @Override
    public long[] scanFor(long nanos) throws IOException {
        long n = 0;
        long bytes = 0;
        long end = System.nanoTime() + nanos;
        try (CloseableIterator<Entry> it = store.scan(new byte[0], null)) {
            while (it.hasNext()) {
                Entry e = it.next();
                n++;
                bytes += e.key().length + e.valueLength();
                if ((n & 1023) == 0 && System.nanoTime() > end) break;
            }
        }
        return new long[] {n, bytes};
    }

    @Override
    public String shape() {
        StoreStats s = store.stats();
        return s.tables() + " tables";
    }

    @Override
    public void close() throws IOException { store.close(); }
}
