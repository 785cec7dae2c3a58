package dht.node.rpc;

import dht.node.exec.EventLoops;
import dht.node.rpc.ReplicaBatch.Op;
import dht.node.rpc.ReplicaBatch.Result;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * Coalesces the replica operations that one event loop sends to one peer during one pass of its
 * loop into a single exchange ({@link ReplicaBatch}); an operation alone in its pass goes out as an
 * ordinary single request. So under light load nothing changes, and as load grows and each pass reads
 * more requests, the internal exchanges per client request fall (measured in docs/cluster.md).
 *
 * <p>Why: in a cluster on few cores the cost of a coordinated request is mostly its internal HTTP
 * exchanges (two per request with three replicas): a system call to send, a wake-up and a read on
 * the replica, the same back. A batch pays that once for all its operations.
 *
 * <p>Invariants: every submitted operation's future completes exactly once, with its own result or
 * with the failure of the exchange that carried it; a batch holds at most
 * {@link #MAX_BATCH_OPS} operations and about {@link #MAX_BATCH_BYTES} bytes, and its answer about
 * {@link ReplicaBatch#MAX_ANSWER_VALUE_BYTES} of values (a read past that is answered "ask alone"
 * and sent again as a single request); the pass's state is touched by its loop's thread only.
 * Each operation is submitted with the membership version it was placed by, and a batch holds
 * operations of one version and carries it, so that a replica on a newer version refuses exactly
 * those placed by an older one ({@code MembershipFence}), even when the version changed before the
 * end of the pass.
 */
final class PeerBatcher {
    static final int MAX_BATCH_OPS = 128;
    static final int MAX_BATCH_BYTES = 256 * 1024;

    private final EventExecutorGroup loops;
    private final Single single;
    private final Batch batch;
    private final ThreadLocal<Pass> passes = new ThreadLocal<>();
    private final Pass notALoop = new Pass(null);

    /**
     * @param loops  the event loops whose operations are coalesced
     * @param single sends one operation on its own
     * @param batch  sends several in one exchange; its results are in the operations' order
     */
    PeerBatcher(EventExecutorGroup loops, Single single, Batch batch) {
        this.loops = loops;
        this.single = single;
        this.batch = batch;
    }

    /** Sends one operation on its own, placed by membership {@code version}. */
    @FunctionalInterface
    interface Single {
        CompletableFuture<Result> send(Op op, long version);
    }

    /** Sends several in one exchange, all placed by {@code version}; results in the operations' order. */
    @FunctionalInterface
    interface Batch {
        CompletableFuture<List<Result>> send(List<Op> ops, long version);
    }

    /**
     * Sends {@code op}, placed by membership {@code version}, with this pass's other operations to
     * the peer, or alone off the loops.
     */
    CompletableFuture<Result> submit(Op op, long version) {
        Pass p = pass();
        if (p != notALoop) {
            CompletableFuture<Result> f = p.add(op, version);
            if (f != null) return f;
        }
        return single.send(op, version);
    }

    private Pass pass() {
        Pass p = passes.get();
        if (p == null) {
            EventExecutor loop = EventLoops.current(loops);
            p = loop == null ? notALoop : new Pass(loop);
            passes.set(p);
        }
        return p;
    }

    private record Pending(Op op, CompletableFuture<Result> result, long version) {}

    /** One loop's operations for this peer in the current pass. */
    private final class Pass {
        private final EventExecutor loop;
        private List<Pending> pending = new ArrayList<>();
        private int bytes;

        Pass(EventExecutor loop) {
            this.loop = loop;
        }

        /** Queues the op for the end of this pass; null if the loop takes no more tasks. */
        CompletableFuture<Result> add(Op op, long version) {
            int size = op.encodedSize();
            if (!pending.isEmpty() && (pending.size() >= MAX_BATCH_OPS || bytes + size > MAX_BATCH_BYTES
                    || pending.getLast().version != version)) {
                // full, or placed by another membership version (a late read repair beside new
                // writes): this one starts the next batch of the same pass, so that a replica on a
                // newer version refuses only the operations placed by an older one
                send();
            }
            if (pending.isEmpty()) {
                try {
                    loop.execute(this::send);
                } catch (RejectedExecutionException e) {
                    return null; // the loop is shutting down: the op goes out alone
                }
            }
            CompletableFuture<Result> f = new CompletableFuture<>();
            pending.add(new Pending(op, f, version));
            bytes += size;
            return f;
        }

        private void send() {
            List<Pending> out = pending;
            if (out.isEmpty()) return; // already sent because it filled up
            pending = new ArrayList<>();
            bytes = 0;
            if (out.size() == 1) {
                Pending p = out.get(0);
                forward(alone(p), p.result);
                return;
            }
            List<Op> ops = new ArrayList<>(out.size());
            for (Pending p : out) ops.add(p.op);
            CompletableFuture<List<Result>> answer;
            try {
                answer = batch.send(ops, out.getFirst().version); // one version for all (add)
            } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            answer.whenComplete((results, failure) -> {
                for (int i = 0; i < out.size(); i++) {
                    Pending p = out.get(i);
                    if (failure != null) p.result.completeExceptionally(failure);
                    else if (results.get(i).status() == ReplicaBatch.ASK_ALONE) forward(alone(p), p.result);
                    else p.result.complete(results.get(i));
                }
            });
        }

        private CompletableFuture<Result> alone(Pending p) {
            try {
                return single.send(p.op, p.version);
            } catch (RuntimeException e) { // thrown here it would leave this and later results incomplete
                return CompletableFuture.failedFuture(e);
            }
        }

        private static void forward(CompletableFuture<Result> from, CompletableFuture<Result> to) {
            from.whenComplete((r, e) -> {
                if (e != null) to.completeExceptionally(e);
                else to.complete(r);
            });
        }
    }
}
