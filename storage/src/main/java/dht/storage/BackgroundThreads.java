package dht.storage;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's background threads (flush, compaction, log sync, housekeeping): daemons, so that a store left
 * open never keeps a process alive. Logs under {@link LsmStore}'s name.
 */
final class BackgroundThreads {
    private static final Logger log = LoggerFactory.getLogger(LsmStore.class);

    /** A refused priority is said once per process, not once per store and thread. */
    private static final AtomicBoolean priorityRefusalLogged = new AtomicBoolean();

    private BackgroundThreads() {}

    /**
     * One background thread, started now, by the thread opening the store: a thread inherits its
     * creator's scheduling (its CPU mask on Linux), and one started lazily by a writer would take
     * on that writer's. The thread sets its own CPU priority ({@link StoreOptions#backgroundPriority})
     * as it starts: on Linux that is a per-thread attribute.
     */
    static ExecutorService start(String name, BackgroundPriority priority) {
        ThreadFactory daemon = daemon(name);
        ThreadPoolExecutor e = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                r -> daemon.newThread(() -> {
                    if (!priority.applyToCurrentThread() && priorityRefusalLogged.compareAndSet(false, true)) {
                        log.info("background threads keep their CPU priority: the system refused {}", priority);
                    }
                    r.run();
                }));
        e.prestartCoreThread();
        return e;
    }

    /** Daemon threads of one name. */
    static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
