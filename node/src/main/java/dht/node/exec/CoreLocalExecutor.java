package dht.node.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The storage threads as one pool per CPU, each pool's threads pinned to its CPU beside the event
 * loop pinned there ({@link #loopThreads}): a loop's store calls run on its own CPU, so handing
 * them over wakes a thread on the core the loop is on, and the answer wakes the loop there too.
 *
 * <p>Why try it: on a 2-core VM each hand-off between an event loop and a storage thread on the
 * other core is a cross-CPU wake-up, and the hand-off, not the store, was most of the storage
 * threads' CPU. Measured, it is not a clear win (docs/benchmarks.md, "Event loops and storage
 * threads pinned per CPU"), so it is off by default ({@code -Ddht.affinity=cores} turns it on).
 * Store work still never runs on an event loop.
 *
 * <p>Invariants: a task handed over by a thread of shard k (its event loop, or one of its storage
 * threads) runs on shard k's pool; from any other thread, on the pools in turn; a thread that
 * cannot be pinned runs unpinned (said once in the log) and keeps its shard; every pool is
 * unbounded only in its queue, which the node's admission limit bounds upstream. A thread started
 * by a pinned thread inherits its CPU (Linux copies the mask): the store starts its flush,
 * compaction and sync threads when it opens for that reason; virtual threads' carriers first started
 * from an event loop still stay on that loop's CPU.
 */
public final class CoreLocalExecutor extends AbstractExecutorService {
    private static final Logger log = LoggerFactory.getLogger(CoreLocalExecutor.class);

    private final List<Integer> cpus;
    private final ThreadPoolExecutor[] pools;
    /** The shard of the calling thread, if it is one of this executor's threads or loops. */
    private final ThreadLocal<Integer> shard = new ThreadLocal<>();
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicBoolean pinFailureLogged = new AtomicBoolean();

    /**
     * @param cpus        one shard per CPU, in this order: event loop k and pool k are pinned to {@code cpus.get(k)}
     * @param threadsEach storage threads in each pool
     * @param queueKind   each pool's queue ({@link StorageExecutors#queue})
     */
    public CoreLocalExecutor(List<Integer> cpus, int threadsEach, String queueKind) {
        if (cpus.isEmpty() || threadsEach < 1) throw new IllegalArgumentException(cpus + ", " + threadsEach);
        this.cpus = List.copyOf(cpus);
        this.pools = new ThreadPoolExecutor[cpus.size()];
        for (int k = 0; k < pools.length; k++) {
            pools[k] = new ThreadPoolExecutor(threadsEach, threadsEach, 0L, TimeUnit.MILLISECONDS,
                    StorageExecutors.queue(queueKind), storageThreads("storage-" + k + "-", k));
        }
    }

    /**
     * Whether to place a node's threads this way: when asked to ({@code mode} {@code cores}, not
     * {@code none}), its storage executor is the pool, and the node runs one event loop per CPU it
     * may use, so that it has those CPUs to itself as far as it knows. A node given fewer loops
     * shares the machine (bin/dht cluster's nodes) and is not pinned.
     */
    public static boolean appliesTo(String mode, String storageExecutor, int eventLoops, List<Integer> allowedCpus) {
        if (!mode.equals("cores") && !mode.equals("none")) {
            throw new IllegalArgumentException("affinity must be cores or none, not " + mode);
        }
        return mode.equals("cores") && storageExecutor.equals("pool")
                && allowedCpus.size() >= 2 && eventLoops == allowedCpus.size();
    }

    /** The storage pool's size shared out, at least 8 a CPU for reads waiting on the disk. */
    public static int threadsEach(int poolSize, int cpus) {
        return Math.max(8, Math.ceilDiv(poolSize, cpus));
    }

    public List<Integer> cpus() {
        return cpus;
    }

    /** Threads for the event loops: the k-th thread made is loop k, named {@code prefix + k}, on shard k % shards. */
    public ThreadFactory loopThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return task -> {
            int k = n.getAndIncrement();
            return pinned(prefix + k, k % pools.length, false, task);
        };
    }

    /** Storage threads of shard {@code k}, named {@code prefix} and a number. */
    private ThreadFactory storageThreads(String prefix, int k) {
        AtomicInteger n = new AtomicInteger();
        return task -> pinned(prefix + n.getAndIncrement(), k, true, task);
    }

    private Thread pinned(String name, int k, boolean daemon, Runnable task) {
        int cpu = cpus.get(k);
        return Thread.ofPlatform().name(name).daemon(daemon).unstarted(() -> {
            if (!CpuAffinity.pinCurrentThread(cpu) && pinFailureLogged.compareAndSet(false, true)) {
                log.warn("could not pin thread {} to CPU {}; it and any others that fail run unpinned", name, cpu);
            }
            shard.set(k);
            task.run();
        });
    }

    @Override
    public void execute(Runnable task) {
        Integer k = shard.get();
        pools[k != null ? k : Math.floorMod(next.getAndIncrement(), pools.length)].execute(task);
    }

    @Override
    public void shutdown() {
        for (var p : pools) p.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
        List<Runnable> all = new ArrayList<>();
        for (var p : pools) all.addAll(p.shutdownNow());
        return all;
    }

    @Override
    public boolean isShutdown() {
        for (var p : pools) {
            if (!p.isShutdown()) return false;
        }
        return true;
    }

    @Override
    public boolean isTerminated() {
        for (var p : pools) {
            if (!p.isTerminated()) return false;
        }
        return true;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (var p : pools) {
            if (!p.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) return false;
        }
        return true;
    }
}
