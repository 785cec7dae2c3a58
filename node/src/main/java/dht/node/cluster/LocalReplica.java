package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.ReadBudget;
import dht.storage.Store;
import java.util.concurrent.CompletableFuture;

/**
 * This node as a replica: store operations are handed to the storage threads, or run on the
 * calling event loop only where they cannot wait ({@link StorageDispatcher}). A rejected task
 * (executor saturated or shut down) is a failed replica.
 *
 * <p>A version this node's store holds stamped more than the max clock offset ahead of its clock
 * fails the read, as a peer's answer carrying one does ({@code rpc.RemoteReplica}): kept while this
 * node's clock was ahead (it stamped it, or took it then), it would otherwise win over every later
 * write and delete of its key in reads this node coordinates once its clock is right again (a
 * black-box tester read back a value older than an acknowledged ack=3 write, and a deleted key).
 */
final class LocalReplica implements Replica {
    private final String url;
    private final Store store;
    private final StorageDispatcher reads;
    private final StorageDispatcher writes;
    /** Judges the versions read; null: none is refused. */
    private final HybridLogicalClock clock;

    LocalReplica(String url, Store store, StorageDispatcher reads, StorageDispatcher writes) {
        this(url, store, reads, writes, null);
    }

    LocalReplica(String url, Store store, StorageDispatcher reads, StorageDispatcher writes, HybridLogicalClock clock) {
        this.clock = clock;
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
        reads.submitRead(result, store, () -> judged(store.get(key, budget), budget));
        return result;
    }

    /** {@code e}, unless stamped beyond the max clock offset: then refused, its reservation given back. */
    private Entry judged(Entry e, ReadBudget budget) {
        if (e == null || clock == null || clock.acceptable(e.timestamp())) return e;
        if (!e.isTombstone()) budget.release(e.valueLength());
        clock.observe(e.timestamp(), "this node's store"); // refused: counted and logged
        throw clock.refusal(e.timestamp());
    }

    @Override
    public CompletableFuture<Void> write(Entry entry) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        writes.submitWrite(result, store, entry);
        return result;
    }
}
