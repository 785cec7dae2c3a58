package dht.node.exec;

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
 * <p>Invariants: at most {@code limit} tasks run at once; every task is either run exactly once or,
 * when the delegate rejects a new runner (shutdown) before any runner took it, told so through
 * {@link Rejectable#rejected} (a task that is not {@link Rejectable} makes {@link #execute} throw
 * instead), never both; {@code running} counts the runners holding a slot (started or about to be);
 * whenever a task waits, some runner holds a slot or the thread that queued it takes one.
 */
public final class BoundedConcurrencyExecutor implements Executor {
    private final Executor delegate;
    private final int limit;
    private final Queue<Runnable> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicInteger running = new AtomicInteger();

    public BoundedConcurrencyExecutor(Executor delegate, int limit) {
        if (limit < 1) throw new IllegalArgumentException("limit " + limit);
        this.delegate = delegate;
        this.limit = limit;
    }

    @Override
    public void execute(Runnable task) {
        waiting.add(task);
        if (!takeSlotIfWork()) return;
        try {
            delegate.execute(this::runWaiting);
        } catch (Throwable e) {
            running.decrementAndGet();
            if (!(e instanceof RejectedExecutionException rejected)) throw e;
            // The delegate is shutting down. Tasks polled here were taken by no runner, so each is
            // told once that it will not run; one a live runner already took still runs.
            boolean someCannotBeTold = false;
            Runnable t;
            while ((t = waiting.poll()) != null) {
                if (t instanceof Rejectable r) r.rejected(rejected);
                else someCannotBeTold = true;
            }
            if (someCannotBeTold) throw rejected;
        }
    }

    /** Takes a slot if one is free and a task waits; the caller then owes a runner for it. */
    private boolean takeSlotIfWork() {
        while (true) {
            int r = running.get();
            if (r >= limit || waiting.isEmpty()) return false;
            if (running.compareAndSet(r, r + 1)) return true;
        }
    }

    /**
     * Drains the queue, then gives its slot back; a task queued after the last poll but before the
     * slot was given back found every slot taken, so the runner takes a slot again and keeps going
     * on this thread (never submits a new runner from here, where a rejection would kill the pool's
     * thread).
     */
    private void runWaiting() {
        do {
            Runnable t;
            while ((t = waiting.poll()) != null) {
                try {
                    t.run();
                } catch (Throwable e) {
                    Thread self = Thread.currentThread();
                    self.getUncaughtExceptionHandler().uncaughtException(self, e);
                }
            }
            running.decrementAndGet();
        } while (takeSlotIfWork());
    }

    /** A task that can be told it will never run. */
    public interface Rejectable extends Runnable {
        void rejected(RejectedExecutionException e);
    }
}
