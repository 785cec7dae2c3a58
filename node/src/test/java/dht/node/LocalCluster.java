package dht.node;

import dht.node.cluster.Answer;
import dht.node.cluster.ClusterScanner;
import dht.node.cluster.ClusterView;
import dht.node.cluster.Coordinator;
import dht.node.cluster.Quorum;
import dht.node.rpc.ReplicaEndpoint;
import dht.storage.Entry;
import dht.storage.Store;
import io.netty.handler.codec.http.HttpResponseStatus;
import dht.node.http.Responses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test-only single-node cluster layer: coordinates every request on the local store through the
 * storage executor, as the real one does for its local replica. Lets the HTTP tests run without
 * depending on the cluster module's progress.
 */
final class LocalCluster implements ClusterServices {
    private final String self;
    private final Store store;
    private final Executor executor;
    private final AtomicLong clock = new AtomicLong();
    private final ClusterScanner scanner;

    LocalCluster(String self, Store store, Executor executor, ClusterScanner scanner) {
        this.self = self;
        this.store = store;
        this.executor = executor;
        this.scanner = scanner != null ? scanner : (start, end, ack) -> io(() -> store.scan(start, end));
    }

    static ClusterServices.Starter starter() {
        return starter(null);
    }

    /** With {@code scanner} standing in for the cluster scan (null: the local store's scan). */
    static ClusterServices.Starter starter(ClusterScanner scanner) {
        return (config, store, executor, loops) -> new LocalCluster(config.self(), store, executor, scanner);
    }

    private long tick() {
        return clock.updateAndGet(t -> Math.max(t + 1, System.currentTimeMillis() << 16));
    }

    @Override
    public Coordinator coordinator() {
        return new Coordinator() {
            @Override
            public CompletableFuture<Answer> get(byte[] key, Quorum quorum) {
                return CompletableFuture.supplyAsync(() -> {
                    Entry e = io(() -> store.get(key));
                    return e == null || e.isTombstone() ? Answer.NOT_FOUND : Answer.found(e.value());
                }, executor);
            }

            @Override
            public CompletableFuture<Answer> put(byte[] key, byte[] value, Quorum quorum) {
                return CompletableFuture.supplyAsync(() -> {
                    io(() -> {
                        store.put(key, value, tick());
                        return null;
                    });
                    return Answer.STORED;
                }, executor);
            }

            @Override
            public CompletableFuture<Answer> delete(byte[] key, Quorum quorum) {
                return CompletableFuture.supplyAsync(() -> {
                    io(() -> {
                        store.delete(key, tick());
                        return null;
                    });
                    return Answer.DELETED;
                }, executor);
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public ReplicaEndpoint replicaEndpoint() {
        return request -> CompletableFuture.completedFuture(
                Responses.text(HttpResponseStatus.NOT_IMPLEMENTED, "test cluster has no replicas"));
    }

    @Override
    public ClusterView view() {
        return new ClusterView() {
            @Override
            public String self() {
                return self;
            }

            @Override
            public List<String> nodes() {
                return List.of(self);
            }

            @Override
            public Map<String, Boolean> peersUp() {
                return Map.of();
            }
        };
    }

    @Override
    public ClusterScanner scanner() {
        return scanner;
    }

    @Override
    public void close() {
    }

    interface IoCall<T> {
        T call() throws IOException;
    }

    static <T> T io(IoCall<T> c) {
        try {
            return c.call();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

}
