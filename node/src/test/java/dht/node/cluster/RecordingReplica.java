package dht.node.cluster;

import dht.storage.Entry;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A replica for unit tests: remembers the writes it was sent; fails them all while {@link #failing}
 * or {@link #down} (known down, as a failure detector would say), and always fails those in {@link #refused}.
 */
final class RecordingReplica implements Replica {
    final String url;
    final List<Entry> written = new CopyOnWriteArrayList<>();
    volatile boolean failing;
    volatile boolean down;
    final Set<Entry> refused = ConcurrentHashMap.newKeySet();

    RecordingReplica(String url) {
        this.url = url;
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public CompletableFuture<Entry> read(byte[] key) {
        throw new UnsupportedOperationException("reads are the test's to complete");
    }

    @Override
    public boolean knownDown() {
        return down;
    }

    @Override
    public CompletableFuture<Void> write(Entry entry) {
        if (failing || down || refused.contains(entry)) return CompletableFuture.failedFuture(new IllegalStateException(url + " is down"));
        written.add(entry);
        return CompletableFuture.completedFuture(null);
    }
}
