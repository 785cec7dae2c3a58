package dht.node;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The threads storage work runs on (never the event loop): a fixed pool of platform threads, the
 * winner of the experiment in docs/http-server.md over virtual threads. The loser stays selectable
 * with {@code -Ddht.storage.executor=pool|virtual} (and the pool size with
 * {@code -Ddht.storage.threads}) for re-running it. Either way concurrency is bounded upstream by the node's
 * admission limit, so no queue here can grow without bound.
 */
final class StorageExecutors {
    static final String PROPERTY = "dht.storage.executor";

    private StorageExecutors() {
    }

    static String kind() {
        return System.getProperty(PROPERTY, "pool");
    }

    static ExecutorService create() {
        return switch (kind()) {
            case "virtual" -> Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("storage-v-", 0).factory());
            case "pool" -> Executors.newFixedThreadPool(poolSize(),
                    Thread.ofPlatform().name("storage-", 0).daemon(true).factory());
            default -> throw new IllegalArgumentException("-D" + PROPERTY + " must be pool or virtual, not " + kind());
        };
    }

    /**
     * 64 by measurement: with the log fsynced per write, concurrent writers share one fsync (group
     * commit), and a pool of 4 caps the group at 4 (half the throughput of 64 or of virtual threads).
     */
    static final int DEFAULT_POOL_SIZE = 64;

    static int poolSize() {
        return Integer.getInteger("dht.storage.threads", DEFAULT_POOL_SIZE);
    }
}
