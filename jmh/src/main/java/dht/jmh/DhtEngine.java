package dht.jmh;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.LsmStore;
import dht.storage.StoreOptions;
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
        store = LsmStore.open(dir, StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC).withBlockSize(blockSize));
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
    public void close() throws IOException { store.close(); }
}
