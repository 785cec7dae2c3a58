package dht.node.exec;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads storage work runs on (never the event loop): a fixed pool of platform threads, the
 * winner of the experiment in docs/http-server.md over virtual threads ({@code -Ddht.affinity=cores}
 * splits it into one pool per CPU, pinned: {@link CoreLocalExecutor}). The others stay selectable
 * ({@code -Ddht.storage.executor}) for re-running it. Either way concurrency is bounded upstream by
 * the node's admission limit, so no queue here can grow without bound.
 */
public final class StorageExecutors {
    private StorageExecutors() {
    }

    /**
     * @param kind      {@code pool}, {@code forkjoin} or {@code virtual}
     * @param queueKind the pool's queue ({@link #queue})
     * @param poolSize  threads of {@code pool} and {@code forkjoin}
     */
    public static ExecutorService create(String kind, String queueKind, int poolSize) {
        return switch (kind) {
            case "virtual" -> Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("storage-v-", 0).factory());
            case "pool" -> new ThreadPoolExecutor(poolSize, poolSize, 0L, TimeUnit.MILLISECONDS, queue(queueKind),
                    Thread.ofPlatform().name("storage-", 0).daemon(true).factory());
            case "forkjoin" -> forkJoin(poolSize);
            default -> throw new IllegalArgumentException("storage executor must be pool, forkjoin or virtual, not " + kind);
        };
    }

    /**
     * A fork-join pool of the same size: it wakes the most recently idle worker (a stack), where
     * the pool's blocking queue wakes the one idle longest, so each hand-off lands on a cold thread.
     * It cost the node more CPU, all in the storage threads (docs/benchmarks.md, "Waking the most
     * recently idle storage thread"), so it is not the default.
     */
    private static ExecutorService forkJoin(int poolSize) {
        AtomicInteger n = new AtomicInteger();
        return new ForkJoinPool(poolSize, pool -> {
            var t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            t.setName("storage-fj-" + n.getAndIncrement());
            return t;
        }, null, true);
    }

    /**
     * The pool's task queue, {@code blocking} or {@code transfer}. The blocking queue's lock is the
     * only one in the GET lock flame graphs; LinkedTransferQueue hands over with compare-and-set
     * instead but measured lower throughput (docs/reports/single-get-64c.md): its idle takers spin
     * before parking, on the cores the event loops need. {@code transfer} re-runs the comparison.
     */
    static BlockingQueue<Runnable> queue(String queueKind) {
        return switch (queueKind) {
            case "transfer" -> new LinkedTransferQueue<>();
            default -> new LinkedBlockingQueue<>();
        };
    }
}
