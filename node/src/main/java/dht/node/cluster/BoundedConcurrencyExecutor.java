package dht.node.cluster;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs tasks on a delegate executor, at most {@code limit} at a time; the rest wait in a queue and
 * are run, in order of arrival, by the tasks already running as each finishes (no thread waits for
 * a slot).
 *
 * <p>Why: store writes under {@code --sync periodic} that run on many storage threads at once
 * only meet on the store's writer mutex, and each that waits there parks and is woken again; at
 * 60,000 PUT/s on two cores that convoy showed up as p99 stalls that 8 storage threads did not
 * have (docs/benchmarks.md, "Fewer threads for writes"). Reads keep the whole pool.
 *
 * <p>Invariants: at most {@code limit} tasks run at once; every task accepted is run exactly once,
 * unless the delegate rejects it, in which case {@link #execute} throws and the task is not run;
 * {@code running} counts the runners holding a slot (started or about to be).
 */
final class BoundedConcurrencyExecutor implements Executor {
    private final Executor delegate;
    private final int limit;
    private final Queue<Runnable> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicInteger running = new AtomicInteger();

    BoundedConcurrencyExecutor(Executor delegate, int limit) {
        if (limit < 1) throw new IllegalArgumentException("limit " + limit);
        this.delegate = delegate;
        this.limit = limit;
    }

    @Override
    public void execute(Runnable task) {
        waiting.add(task);
        startRunnerIfSlotFree();
    }

    private void startRunnerIfSlotFree() {
        while (true) {
            int r = running.get();
            if (r >= limit || waiting.isEmpty()) return;
            if (running.compareAndSet(r, r + 1)) break;
        }
        try {
            delegate.execute(this::runWaiting);
        } catch (RejectedExecutionException e) {
            running.decrementAndGet();
            // Tasks still queued would never run: fail them the way the delegate would have.
            Runnable t;
            while ((t = waiting.poll()) != null) {
                if (t instanceof Rejectable r) r.rejected(e);
            }
            throw e;
        }
    }

    private void runWaiting() {
        try {
            Runnable t;
            while ((t = waiting.poll()) != null) t.run();
        } finally {
            running.decrementAndGet();
            // A task queued after the poll above saw an empty queue, and this runner's slot taken.
            startRunnerIfSlotFree();
        }
    }

    /** A task that can be told it will never run. */
    interface Rejectable extends Runnable {
        void rejected(RejectedExecutionException e);
    }
}
