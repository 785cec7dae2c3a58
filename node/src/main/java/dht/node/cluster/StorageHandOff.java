package dht.node.cluster;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * How store work leaves the event loops for the storage executor: one task per call, or, when
 * batching, every call an event loop makes in one pass of its loop gathered into one task.
 *
 * <p>Why batch: the hand-off itself (waking a parked storage thread, and its context switch) was
 * the largest cost in the flame graphs, not the store calls. An event loop reads many requests in
 * one pass; handing them over together wakes one thread instead of one per request. The price: a
 * batch runs its calls one after another on one thread, so a slow call (a read that misses the page
 * cache, a write held back while flushes catch up) delays the calls after it in its batch.
 *
 * <p>Invariants: every task runs exactly once on a storage thread, or its future fails with the
 * executor's {@link RejectedExecutionException}; nothing runs store work on an event loop; the calls
 * of one batch run in the order they were made.
 */
final class StorageHandOff {
    /** Store work that may throw; its failure completes the caller's future. */
    interface StoreTask {
        void run() throws Exception;
    }

    private final Executor executor;
    /** The event loops whose calls are batched; null when nothing is. */
    private final EventExecutorGroup loops;
    /** Per thread: its batch if it is one of {@link #loops}, else {@link #notALoop}. */
    private final ThreadLocal<Batch> batches = new ThreadLocal<>();
    private final Batch notALoop = new Batch(null);

    /**
     * @param executor the storage threads
     * @param loops    the event loops whose calls are handed over in batches, or null to hand every
     *                 call over on its own
     */
    StorageHandOff(Executor executor, EventExecutorGroup loops) {
        this.executor = executor;
        this.loops = loops;
    }

    /** Runs {@code task} on a storage thread; {@code result} fails if the task throws or cannot be handed over. */
    void submit(CompletableFuture<?> result, StoreTask task) {
        Call call = new Call(result, task);
        if (loops != null) {
            Batch b = batch();
            if (b != notALoop && b.add(call)) return;
        }
        hand(List.of(call));
    }

    private Batch batch() {
        Batch b = batches.get();
        if (b == null) {
            EventExecutor loop = EventLoops.current(loops);
            b = loop == null ? notALoop : new Batch(loop);
            batches.set(b);
        }
        return b;
    }

    private void hand(List<Call> calls) {
        HandedOver task = new HandedOver(calls);
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            // Only a plain executor throws for a Rejectable task; a bounded one told it already.
            task.rejected(e);
        }
    }

    /** Calls handed over together; told when they will never run (a bounded executor's queue at shutdown). */
    private record HandedOver(List<Call> calls) implements BoundedConcurrencyExecutor.Rejectable {
        @Override
        public void run() {
            for (Call c : calls) c.run();
        }

        @Override
        public void rejected(RejectedExecutionException e) {
            for (Call c : calls) c.result.completeExceptionally(e);
        }
    }

    private record Call(CompletableFuture<?> result, StoreTask task) {
        void run() {
            try {
                task.run();
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }
    }

    /** One event loop's calls of the current pass; touched by that loop's thread only. */
    private final class Batch {
        private final EventExecutor loop;
        private List<Call> calls = new ArrayList<>();

        Batch(EventExecutor loop) {
            this.loop = loop;
        }

        /** Adds the call, scheduling the hand-off after this pass's I/O; false if the loop takes no more tasks. */
        boolean add(Call call) {
            if (calls.isEmpty()) {
                try {
                    loop.execute(this::flush);
                } catch (RejectedExecutionException e) {
                    return false; // the loop is shutting down: hand this call over on its own
                }
            }
            calls.add(call);
            return true;
        }

        private void flush() {
            List<Call> out = calls;
            calls = new ArrayList<>();
            hand(out);
        }
    }
}
