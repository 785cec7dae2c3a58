package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.ReadBudget;
import dht.storage.Store;
import java.util.concurrent.CompletableFuture;

/**
 * This node as a replica: store operations are handed to the storage threads, or run on the
 * calling event loop only where they cannot wait ({@link StorageDispatcher}). A rejected task
 * (executor saturated or shut down) is a failed replica.
 */
final class LocalReplica implements Replica {
    private final String url;
    private final Store store;
    private final StorageDispatcher reads;
    private final StorageDispatcher writes;

    LocalReplica(String url, Store store, StorageDispatcher reads, StorageDispatcher writes) {
        this.url = url;
        this.store = store;
        this.reads = reads;
        this.writes = writes;
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public CompletableFuture<Entry> read(byte[] key) {
        return read(key, ReadBudget.UNLIMITED);
    }

    @Override
    public CompletableFuture<Entry> read(byte[] key, ReadBudget budget) {
        CompletableFuture<Entry> result = new CompletableFuture<>();
        reads.submitRead(result, store, () -> store.get(key, budget));
        return result;
    }

    @Override
    public CompletableFuture<Void> write(Entry entry) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        writes.submitWrite(result, store, entry);
        return result;
    }
}
