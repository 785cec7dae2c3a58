package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.Store;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * This node as a replica: store operations run on the storage executor, never on the calling
 * (event-loop) thread. A rejected task (executor saturated or shut down) is a failed replica.
 */
final class LocalReplica implements Replica {
    private final String url;
    private final Store store;
    private final Executor executor;

    LocalReplica(String url, Store store, Executor executor) {
        this.url = url;
        this.store = store;
        this.executor = executor;
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public CompletableFuture<Entry> read(byte[] key) {
        CompletableFuture<Entry> result = new CompletableFuture<>();
        submit(result, () -> result.complete(store.get(key)));
        return result;
    }

    @Override
    public CompletableFuture<Void> write(Entry entry) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        submit(result, () -> {
            apply(store, entry);
            result.complete(null);
        });
        return result;
    }

    static void apply(Store store, Entry entry) throws java.io.IOException {
        if (entry.isTombstone()) {
            store.delete(entry.key(), entry.timestamp());
        } else {
            store.put(entry.key(), entry.value(), entry.timestamp());
        }
    }

    interface StoreTask {
        void run() throws Exception;
    }

    /** Runs {@code task} on {@code executor}, completing {@code result} exceptionally if it throws or is rejected. */
    static void submit(Executor executor, CompletableFuture<?> result, StoreTask task) {
        try {
            executor.execute(() -> {
                try {
                    task.run();
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(e);
        }
    }

    private void submit(CompletableFuture<?> result, StoreTask task) {
        submit(executor, result, task);
    }
}
