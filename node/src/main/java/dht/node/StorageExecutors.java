package dht.node;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The threads storage work runs on (never the event loop). Which kind is decided by measurement
 * (docs/http-server.md); the other stays selectable with {@code -Ddht.storage.executor=pool|virtual}
 * for re-running the experiment. Either way concurrency is bounded upstream by the node's
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

    static int poolSize() {
        return Integer.getInteger("dht.storage.threads", Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));
    }
}
