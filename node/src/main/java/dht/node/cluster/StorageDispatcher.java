package dht.node.cluster;

import dht.node.exec.BoundedConcurrencyExecutor;
import dht.node.exec.EventLoops;
import dht.storage.Entry;
import dht.storage.ReadsWithoutWaiting;
import dht.storage.Store;
import dht.storage.WouldWaitException;
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
 * <p>Two exceptions to the hand-off, when batching, both at the head of a batch: the writes that
 * their store commits at once ({@link Store#tryWrite}: no fsync, no writer ahead, room in the
 * memtable) are made on the event loop, with their tasks; only a write to the page cache can wait
 * there. And the reads of a store whose index and filters are in memory
 * ({@link Store#readsWithoutWaiting}) run there too, each handed over after all (with the calls
 * after it) if the block it needs is not ({@link WouldWaitException}).
 *
 * <p>Invariants: every task runs at most once, and its future completes: by the task, or failed
 * with the executor's refusal (or, for a write, with the write's failure), also when that refusal
 * or failure is an Error such as an OutOfMemoryError; a call that fails, however, never stops the
 * calls after it in its batch; no store call that can wait (a read of a store not wholly in
 * memory, a write the store declines) runs on an event loop; the calls of one batch run in the
 * order they were made, consecutive
 * writes to one store as one {@link Store#write(List)} or {@link Store#tryWrite} call.
 */
final class StorageDispatcher {
    /** Store work that may throw; its failure completes the caller's future. */
    interface StoreTask {
        void run() throws Exception;
    }

    /** A read of one store that may throw; its value completes the caller's future. */
    interface StoreRead<T> {
        T read() throws Exception;
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
    StorageDispatcher(Executor executor, EventExecutorGroup loops) {
        this.executor = executor;
        this.loops = loops;
    }

    /** Runs {@code task} on a storage thread; {@code result} fails if the task throws or cannot be handed over. */
    void submit(CompletableFuture<?> result, StoreTask task) {
        submit(new Call(result, task, null, null, null));
    }

    /**
     * Writes {@code entry} to {@code store} on a storage thread, then runs {@code written} there;
     * {@code result} fails if the write fails or cannot be handed over. Writes made one after
     * another in one batch go to the store as one {@link Store#write(List)} call: one group commit,
     * one log append, instead of one each.
     */
    void submitWrite(CompletableFuture<?> result, Store store, Entry entry, StoreTask written) {
        submit(new Call(result, written, store, entry, null));
    }

    /** The same, completing {@code result} (with null) once written: no task to make per write. */
    void submitWrite(CompletableFuture<Void> result, Store store, Entry entry) {
        submit(new Call(result, null, store, entry, null));
    }

    /**
     * Runs {@code read}, which reads {@code store} and nothing else that can wait, on a storage
     * thread, or on the event loop when the store says its reads wait for nothing (then perhaps
     * twice: see {@link Call#runWithoutWaiting}), and completes {@code result} with its value.
     */
    <T> void submitRead(CompletableFuture<T> result, Store store, StoreRead<T> read) {
        submit(new Call(result, () -> result.complete(read.read()), store, null, read));
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

    /**
     * Hands the calls to the executor. If that fails, their futures fail now: a bounded executor
     * that refuses (shutdown) has told them already; anything else (an executor out of heap for a
     * new worker thread or a queue node) would otherwise leave them waiting for good, and with them
     * each request's admission permit. Should the executor have queued them after all, they still
     * run and find their futures failed: a client told of a failure learns nothing of whether its
     * write took effect, as after any failed write.
     */
    private void hand(List<Call> calls) {
        try {
            executor.execute(new HandedOver(calls));
        } catch (Throwable e) {
            for (Call c : calls) c.fail(e);
        }
    }

    /** Calls handed over together; told when they will never run (a bounded executor's queue at shutdown). */
    private record HandedOver(List<Call> calls) implements BoundedConcurrencyExecutor.Rejectable {
        /** Runs every call, in order: one that fails, even with an Error, fails alone. */
        @Override
        public void run() {
            int i = 0;
            while (i < calls.size()) {
                Call c = calls.get(i);
                if (!c.isWrite()) {
                    c.run();
                    i++;
                    continue;
                }
                int end = runEnd(calls, i);
                writeAll(i, end);
                i = end;
            }
        }

        /** Writes calls {@code from} to {@code to} (exclusive), all to one store, as one group commit. */
        private void writeAll(int from, int to) {
            Store store = calls.get(from).store;
            try {
                store.write(entriesOf(calls, from, to));
            } catch (IllegalArgumentException e) {
                // An entry the store refuses (too large) is that write's fault alone: one at a time,
                // so that only it fails.
                for (int i = from; i < to; i++) {
                    Call w = calls.get(i);
                    try {
                        store.write(List.of(w.entry));
                    } catch (Throwable each) {
                        w.fail(each);
                        continue;
                    }
                    w.run();
                }
                return;
            } catch (Throwable e) {
                // The store failed (its log, a full disk, a full heap): the run's writes fail
                // together, as a group commit does. Some may have been written all the same.
                for (int i = from; i < to; i++) calls.get(i).fail(e);
                return;
            }
            for (int i = from; i < to; i++) calls.get(i).run();
        }

        @Override
        public void rejected(RejectedExecutionException e) {
            for (Call c : calls) c.fail(e);
        }
    }

    /** The end (exclusive) of the run of writes to one store that starts at the write {@code from}. */
    private static int runEnd(List<Call> calls, int from) {
        int end = from + 1;
        while (end < calls.size() && calls.get(end).isWrite() && calls.get(end).store == calls.get(from).store) end++;
        return end;
    }

    private static List<Entry> entriesOf(List<Call> calls, int from, int to) {
        List<Entry> entries = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) entries.add(calls.get(i).entry);
        return entries;
    }

    /**
     * On the event loop, the batch's leading runs of writes that their store can commit without
     * waiting ({@link Store#tryWrite}), each with its tasks, and reads of a store that reads
     * without waiting; returns how many calls it took, the rest to be handed over in order. Why: a
     * write that needs no fsync is a log append and a memtable insert, and a read of data in
     * memory a lookup, microseconds, where handing it over wakes a storage thread and then the loop
     * again (a quarter of a PUT's CPU in the flame graphs, docs/benchmarks.md).
     */
    private static int runInline(List<Call> calls) {
        int i = 0;
        Store inMemory = null; // a store found to read without waiting in this pass
        while (i < calls.size() && calls.get(i).store != null) {
            Call c = calls.get(i);
            if (!c.isWrite()) {
                if (c.store != inMemory) {
                    if (!readsWithoutWaiting(c.store)) break;
                    inMemory = c.store;
                }
                if (!c.runWithoutWaiting()) break; // a block not in memory: it and the rest are handed over
                i++;
                continue;
            }
            int end = runEnd(calls, i);
            try {
                if (!calls.get(i).store.tryWrite(entriesOf(calls, i, end))) break;
            } catch (Throwable e) {
                // The store failed (its log): the run's writes fail together, as handed over.
                for (int k = i; k < end; k++) calls.get(k).fail(e);
                i = end;
                continue;
            }
            for (int k = i; k < end; k++) calls.get(k).run();
            i = end;
        }
        return i;
    }

    /** {@link Store#readsWithoutWaiting}, a store that fails to tell taken as a no: the read then fails where it may wait. */
    private static boolean readsWithoutWaiting(Store store) {
        try {
            return store.readsWithoutWaiting();
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * A store call; a write also names its store and entry, and {@code task} runs once it is
     * written (a write without a task completes {@code result} with null); a read names its store
     * and no entry.
     */
    private record Call(CompletableFuture<?> result, StoreTask task, Store store, Entry entry, StoreRead<?> read) {
        boolean isWrite() {
            return entry != null;
        }

        /** Runs the task; never throws, so the calls after it in its batch still run. */
        void run() {
            try {
                if (task == null) result.complete(null);
                else task.run();
            } catch (Throwable e) {
                fail(e);
            }
        }

        /**
         * Makes a read in {@link ReadsWithoutWaiting}'s scope, then completes its future outside it
         * (the future's callbacks are not reads); false, with nothing done, if its store would have
         * waited for a disk ({@link WouldWaitException}): the caller hands it over, to be made
         * again. Never throws otherwise, as {@link #run}.
         */
        @SuppressWarnings("unchecked")
        boolean runWithoutWaiting() {
            Object value;
            try {
                value = ReadsWithoutWaiting.call(read::read);
            } catch (WouldWaitException e) {
                return false;
            } catch (Throwable e) {
                fail(e);
                return true;
            }
            try {
                ((CompletableFuture<Object>) result).complete(value);
            } catch (Throwable e) {
                fail(e);
            }
            return true;
        }

        /**
         * Fails the call's future; never throws. Failing it can itself run out of heap (it allocates,
         * and runs the callers' callbacks): nothing more can be done for this call then, and
         * throwing on would lose every call after it in its batch, and the storage thread.
         */
        void fail(Throwable e) {
            try {
                result.completeExceptionally(e);
            } catch (Throwable again) {
                // see above: a second failure with nowhere to report it
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
            int inline = runInline(out);
            if (inline < out.size()) hand(inline == 0 ? out : out.subList(inline, out.size()));
        }
    }
}
