package dht.node;

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
 * splits it into one pool per CPU, pinned: {@link CoreLocalExecutor}). The loser stays selectable
 * with {@code -Ddht.storage.executor=pool|virtual} (and the pool size with
 * {@code -Ddht.storage.threads}) for re-running it. Either way concurrency is bounded upstream by the node's
 * admission limit, so no queue here can grow without bound.
 */
final class StorageExecutors {
    static final String PROPERTY = "dht.storage.executor";

    private StorageExecutors() {
    }

    static String kind() {
        return JvmSettings.oneOf(PROPERTY, "pool", "pool", "forkjoin", "virtual");
    }

    static ExecutorService create() {
        return switch (kind()) {
            case "virtual" -> Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("storage-v-", 0).factory());
            case "pool" -> new ThreadPoolExecutor(poolSize(), poolSize(), 0L, TimeUnit.MILLISECONDS, queue(),
                    Thread.ofPlatform().name("storage-", 0).daemon(true).factory());
            case "forkjoin" -> forkJoin();
            default -> throw new IllegalArgumentException("-D" + PROPERTY + " must be pool, forkjoin or virtual, not " + kind());
        };
    }

    /**
     * A fork-join pool of the same size: it wakes the most recently idle worker (a stack), where
     * the pool's blocking queue wakes the one idle longest, so each hand-off lands on a cold thread.
     * Measured at 60,000 req/s it cost the node 8-12% more CPU, all in the storage threads
     * (docs/benchmarks.md, "Waking the most recently idle storage thread"), so it is not the default.
     */
    private static ExecutorService forkJoin() {
        AtomicInteger n = new AtomicInteger();
        return new ForkJoinPool(poolSize(), pool -> {
            var t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            t.setName("storage-fj-" + n.getAndIncrement());
            return t;
        }, null, true);
    }

    static final String QUEUE_PROPERTY = "dht.storage.queue";

    /**
     * The pool's task queue. Its lock is the only one in the GET lock flame graphs (every hand-off
     * from an event loop offers, every idle worker takes). LinkedTransferQueue hands over with
     * compare-and-set instead, and removes it from the lock profile, but measured lower throughput
     * (docs/reports/single-get-64c.md): its idle takers spin before parking, on the two cores the
     * event loops need. So the blocking queue stays; {@code -Ddht.storage.queue=transfer} re-runs
     * the comparison.
     */
    static BlockingQueue<Runnable> queue() {
        return switch (queueKind()) {
            case "transfer" -> new LinkedTransferQueue<>();
            default -> new LinkedBlockingQueue<>();
        };
    }

    static String queueKind() {
        return JvmSettings.oneOf(QUEUE_PROPERTY, "blocking", "blocking", "transfer");
    }

    /**
     * 64 by measurement: with the log fsynced per write, concurrent writers share one fsync (group
     * commit), and a pool of 4 caps the group at 4 (half the throughput of 64 or of virtual threads).
     */
    static final int DEFAULT_POOL_SIZE = 64;

    static final String BATCH_PROPERTY = "dht.storage.batch";

    /**
     * Whether event loops hand store calls over in batches (see StorageHandOff): measured faster
     * (docs/http-server.md), so on by default, {@code -Ddht.storage.batch=false} re-runs the
     * comparison. Off by default when every write is fsynced: measured then (23 Nov), a batch ran
     * its writes one after another, one fsync each, where separate storage threads share one fsync
     * (group commit). Since 26 Nov a run of writes in a batch is one group commit; measured again
     * (docs/http-server.md), batching gained 1.2x in closed loop but its constant-rate tail was no
     * better (worse in two runs of three), so the default stays. An explicit
     * {@code -Ddht.storage.batch=true} turns it on under every-write too.
     */
    static boolean batchHandOff(boolean syncEveryWrite) {
        return JvmSettings.flag(BATCH_PROPERTY, !syncEveryWrite);
    }

    static int poolSize() {
        return (int) JvmSettings.wholeNumber("dht.storage.threads", DEFAULT_POOL_SIZE, 1, 10_000, "threads");
    }
}
