package dht.node.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Holds a starting node's first client writes until it has asked its peers' clocks once, so that
 * a node restarted with its clock changed refuses those writes too ({@link ClockAgreement}), not
 * only the ones after its first probe came back, about a second after it served (a black-box
 * tester's node, restarted an hour behind, had its very first write acknowledged and lost).
 *
 * <p>Asked lazily, on the first client write, not before serving: nodes of a cluster start one
 * after the other, and asking peers not listening yet would count them down by refusal just when
 * the cluster's first writes come (an earlier start-up check answered those {@code 504}).
 *
 * <p>Invariants: the gate opens once, for good, when the ask is over (every peer answered or
 * failed, or {@code wait} passed) or any peer's clock was heard by other means; the writes held
 * run then, in the order they came, so writes pipelined on one connection keep their order. A peer
 * heard by none of this leaves things as before: the node stamps by its own clock.
 */
final class FirstClockReading {
    private final Supplier<CompletableFuture<Void>> askClocks;
    private final BooleanSupplier heardAny;
    private final Duration wait;
    private volatile boolean open;
    /** Guarded by this; null once open. */
    private List<Runnable> held = new ArrayList<>();
    private boolean asked;
    /** Guarded by this: one thread runs the held writes, and none passes them meanwhile. */
    private boolean draining;

    /**
     * @param askClocks asks every peer once for its clock, heard by the clock as a probe's is
     * @param heardAny  whether any peer's clock has been heard already (a probe, a replica answer)
     * @param wait      the longest a held write waits for the ask (the replica timeout)
     */
    FirstClockReading(Supplier<CompletableFuture<Void>> askClocks, BooleanSupplier heardAny, Duration wait) {
        this.askClocks = askClocks;
        this.heardAny = heardAny;
        this.wait = wait;
    }

    /** A gate that is open from the start: a node without peers has no clock to compare. */
    static FirstClockReading none() {
        FirstClockReading g = new FirstClockReading(() -> CompletableFuture.completedFuture(null), () -> true, Duration.ZERO);
        g.open = true;
        g.held = null;
        return g;
    }

    /** Whether writes pass at once: the cost on every write is this read of a volatile. */
    boolean isOpen() {
        if (open) return true;
        if (heardAny.getAsBoolean()) openNow();
        return open;
    }

    /**
     * {@code write}'s answer: started now if the gate is open, else once it opens. A write that
     * throws fails its answer with what it threw.
     */
    <T> CompletableFuture<T> after(Supplier<CompletableFuture<T>> write) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        Runnable start = () -> {
            try {
                write.get().whenComplete((v, e) -> {
                    if (e != null) answer.completeExceptionally(e);
                    else answer.complete(v);
                });
            } catch (RuntimeException | Error e) {
                answer.completeExceptionally(e);
            }
        };
        boolean ask;
        synchronized (this) {
            if (held == null) {
                ask = false;
            } else {
                held.add(start);
                ask = !asked;
                asked = true;
                start = null;
            }
        }
        if (start != null) {
            start.run();
        } else if (ask) {
            CompletableFuture<Void> asking;
            try {
                asking = askClocks.get();
            } catch (RuntimeException e) {
                asking = CompletableFuture.completedFuture(null);
            }
            asking.completeOnTimeout(null, wait.toMillis(), TimeUnit.MILLISECONDS).whenComplete((v, e) -> openNow());
        }
        return answer;
    }

    /** Runs the held writes in order, those added meanwhile included, then lets writes pass. */
    private void openNow() {
        synchronized (this) {
            if (held == null || draining) return;
            draining = true;
        }
        while (true) {
            List<Runnable> run;
            synchronized (this) {
                if (held.isEmpty()) {
                    held = null;
                    open = true;
                    return;
                }
                run = held;
                held = new ArrayList<>();
            }
            for (Runnable r : run) r.run();
        }
    }
}
