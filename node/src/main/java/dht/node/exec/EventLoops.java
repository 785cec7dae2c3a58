package dht.node.exec;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;

/** Which event loop of a group the calling thread is: what the per-pass batchers key their state on. */
public final class EventLoops {
    private EventLoops() {
    }

    /** The loop of {@code group} that runs on the calling thread, or null if the thread is none of them. */
    public static EventExecutor current(EventExecutorGroup group) {
        for (EventExecutor loop : group) {
            if (loop.inEventLoop()) return loop;
        }
        return null;
    }
}
