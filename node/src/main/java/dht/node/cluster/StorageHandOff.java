package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.Store;
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
 * executor's {@link RejectedExecutionException} (or, for a write, with the write's failure);
 * nothing runs store work on an event loop; the calls of one batch run in the order they were made,
 * consecutive writes to one store as one {@link Store#write(List)} call.
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
        submit(new Call(result, task, null, null));
    }

    /**
     * Writes {@code entry} to {@code store} on a storage thread, then runs {@code written} there;
     * {@code result} fails if the write fails or cannot be handed over. Writes made one after
     * another in one batch go to the store as one {@link Store#write(List)} call: one group commit,
     * one log append, instead of one each.
     */
    void submitWrite(CompletableFuture<?> result, Store store, Entry entry, Runnable written) {
        submit(new Call(result, written::run, store, entry));
    }

    private void submit(Call call) {
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
            int i = 0;
            while (i < calls.size()) {
                Call c = calls.get(i);
                if (c.store == null) {
                    c.run();
                    i++;
                    continue;
                }
                int end = i + 1; // the run of writes to the same store starting here
                while (end < calls.size() && calls.get(end).store == c.store) end++;
                writeAll(calls.subList(i, end));
                i = end;
            }
        }

        private static void writeAll(List<Call> writes) {
            List<Entry> entries = new ArrayList<>(writes.size());
            for (Call w : writes) entries.add(w.entry);
            try {
                writes.getFirst().store.write(entries);
            } catch (IllegalArgumentException e) {
                // An entry the store refuses (too large) is that write's fault alone: one at a time,
                // so that only it fails.
                for (Call w : writes) {
                    try {
                        w.store.write(List.of(w.entry));
                    } catch (Throwable each) {
                        w.result.completeExceptionally(each);
                        continue;
                    }
                    w.run();
                }
                return;
            } catch (Throwable e) {
                // The store failed (its log, a full disk): the run's writes fail together, as a
                // group commit does. Some may have been written all the same.
                for (Call w : writes) w.result.completeExceptionally(e);
                return;
            }
            for (Call w : writes) w.run();
        }

        @Override
        public void rejected(RejectedExecutionException e) {
            for (Call c : calls) c.result.completeExceptionally(e);
        }
    }

    /** A store call; a write also names its store and entry, and {@code task} runs once it is written. */
    private record Call(CompletableFuture<?> result, StoreTask task, Store store, Entry entry) {
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

        /**
         * Adds the call, scheduling the hand-off after this pass's I/O; false if the loop takes no
         * more tasks (it is shutting down, after its channels closed): the call is then handed over on
         * its own, so the order of one pass's writes ({@code Cluster#writesOfOnePassInOrder}) is
         * no longer kept, but no connection is left to have pipelined them.
         */
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
