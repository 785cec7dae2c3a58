package dht.testkit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A thread-safe record of client operations for {@link HistoryChecker}.
 *
 * <p>A client calls {@link #put}, {@link #get} or {@link #delete} just before it sends a request
 * and completes the returned {@link Invocation} as soon as the answer (or the failure) is in:
 * the invoke and complete times then bracket the moment the store acted. Operations still in
 * flight when the history is read count as {@link Operation.Outcome#UNKNOWN} and never completed.
 */
public final class History {
    private final AtomicLong ids = new AtomicLong();
    private final List<Operation> completed = new ArrayList<>();
    private final Map<Long, Invocation> pending = new LinkedHashMap<>();

    /** A PUT of {@code value} (unique across the history, for the checker) is about to be sent. */
    public Invocation put(int process, String key, String value) {
        if (value == null) throw new IllegalArgumentException("a PUT writes a value");
        return invoke(process, Operation.Type.PUT, key, value);
    }

    /** A GET is about to be sent. */
    public Invocation get(int process, String key) {
        return invoke(process, Operation.Type.GET, key, null);
    }

    /** A DELETE is about to be sent. */
    public Invocation delete(int process, String key) {
        return invoke(process, Operation.Type.DELETE, key, null);
    }

    private Invocation invoke(int process, Operation.Type type, String key, String value) {
        if (key == null) throw new IllegalArgumentException("key is required");
        var invocation = new Invocation(ids.incrementAndGet(), process, type, key, value, System.nanoTime());
        synchronized (this) {
            pending.put(invocation.id, invocation);
        }
        return invocation;
    }

    /** Adds an operation made elsewhere (a hand-made history, one read back from a file). */
    public synchronized void add(Operation op) {
        completed.add(op);
    }

    /** Every operation so far, by invoke time; those still in flight as unknown and never completed. */
    public List<Operation> operations() {
        List<Operation> all;
        synchronized (this) {
            all = new ArrayList<>(completed.size() + pending.size());
            all.addAll(completed);
            for (Invocation i : pending.values()) all.add(i.operation(null, Operation.NEVER, Operation.Outcome.UNKNOWN));
        }
        all.sort(Comparator.comparingLong(Operation::invokeNanos).thenComparingLong(Operation::id));
        return all;
    }

    /** Number of operations recorded, in flight included. */
    public synchronized int size() {
        return completed.size() + pending.size();
    }

    private synchronized void complete(Invocation invocation, Operation op) {
        if (pending.remove(invocation.id) == null) throw new IllegalStateException("operation " + invocation.id + " completed twice");
        completed.add(op);
    }

    /** An operation that has been sent; complete it exactly once. */
    public final class Invocation {
        private final long id;
        private final int process;
        private final Operation.Type type;
        private final String key;
        private final String value;
        private final long invokeNanos;

        private Invocation(long id, int process, Operation.Type type, String key, String value, long invokeNanos) {
            this.id = id;
            this.process = process;
            this.type = type;
            this.key = key;
            this.value = value;
            this.invokeNanos = invokeNanos;
        }

        /** A PUT answered 201 or a DELETE answered 202. */
        public void ok() {
            if (type == Operation.Type.GET) throw new IllegalStateException("a GET completes with read(value)");
            finish(value, Operation.Outcome.OK);
        }

        /** A GET answered 200 with {@code value}, or 404 ({@code value} null). */
        public void read(String value) {
            if (type != Operation.Type.GET) throw new IllegalStateException("only a GET reads");
            finish(value, Operation.Outcome.OK);
        }

        /** A definite refusal (4xx): nothing changed. */
        public void fail() {
            finish(type == Operation.Type.GET ? null : value, Operation.Outcome.FAIL);
        }

        /** 504, a timeout or a lost connection: a write may still take effect. */
        public void unknown() {
            finish(type == Operation.Type.GET ? null : value, Operation.Outcome.UNKNOWN);
        }

        private void finish(String v, Operation.Outcome outcome) {
            long now = System.nanoTime();
            complete(this, operation(v, now, outcome));
        }

        private Operation operation(String v, long completeNanos, Operation.Outcome outcome) {
            String recorded = type == Operation.Type.PUT ? value : v;
            return new Operation(id, process, type, key, recorded, invokeNanos, completeNanos, outcome);
        }
    }
}
