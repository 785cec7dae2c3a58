package dht.node.exec;

import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;

/**
 * An event loop's choice between blocking in epoll_wait and polling it without blocking: after any
 * activity (ready I/O or queued tasks) the loop keeps polling for a short window before it blocks.
 *
 * <p>Why: every request crosses threads twice (event loop to storage thread and back). A loop
 * blocked in epoll_wait must be woken through its eventfd when the storage thread hands the answer
 * back, and woken again by the kernel when the client's next request arrives; each wake-up is a
 * context switch, on a VM an inter-processor interrupt. A loop still polling sees both at once, and
 * the storage thread's hand-back skips the eventfd write (Netty writes it only to a loop that is
 * blocked). The price is CPU burnt while nothing comes, bounded by the window after each activity.
 *
 * <p>Invariants: a loop never polls for longer than the window after its last activity; with a
 * window of 0 this is Netty's default strategy. One instance per loop, used by that loop's thread
 * only, so its field needs no synchronization.
 */
public final class BusyPoll implements SelectStrategy {
    private final long windowNanos;
    /** System.nanoTime() until which the loop polls instead of blocking. */
    private long pollUntil;

    private BusyPoll(long windowNanos) {
        this.windowNanos = windowNanos;
        this.pollUntil = System.nanoTime();
    }

    /** A factory giving each loop its own strategy ({@code -Ddht.io.poll.micros}); null when the window is 0 (Netty's default then). */
    public static SelectStrategyFactory factory(long windowMicros) {
        if (windowMicros == 0) return null;
        long nanos = windowMicros * 1_000;
        return () -> new BusyPoll(nanos);
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        int ready = selectNow.get();
        long now = System.nanoTime();
        if (ready > 0 || hasTasks) {
            pollUntil = now + windowNanos;
            return ready;
        }
        if (now - pollUntil < 0) {
            Thread.onSpinWait();
            return 0; // nothing ready: run tasks (none yet) and come back to poll again
        }
        return SelectStrategy.SELECT;
    }
}
