package dht.node.http;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices when the whole process stood still (SIGSTOP, a GC pause of seconds): a
 * daemon thread wakes every {@link #TICK_NANOS}, and a gap of more than {@link #PAUSE_NANOS} (2 s)
 * between two wake-ups is a pause. A request read during one, or within {@link #AFTER_NANOS} after it
 * was noticed, was read just after a pause ({@link #readJustAfterAPause}). {@code System.nanoTime}
 * does not advance while the host sleeps, so a suspended machine is not seen.
 *
 * <p>Why: while the process stood still, clients went on sending, their requests waited in the
 * kernel, and many of those clients gave up. A write read once the process runs again would get
 * its timestamp from then, newer than the writes other nodes acknowledged in the meantime, so
 * last-write-wins would let a write nobody waits for any more undo them (a tester's DELETE, given up
 * on at a frozen node, erased a value acknowledged through another node after it, 7 runs of 7). So
 * {@link EntityRoute} refuses writes (503, nothing applied) until the requests queued meanwhile
 * have been read; a client still waiting sends again.
 */
public final class PauseWatch {
    private static final Logger log = LoggerFactory.getLogger(PauseWatch.class);
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** Two seconds: a client that gave up sooner is not guarded; a shorter one would refuse writes after every scheduling hiccup of a busy machine. */
    static final long PAUSE_NANOS = TimeUnit.SECONDS.toNanos(2);
    static final long AFTER_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** A watch that never sees a pause, for routes built without one. */
    public static final PauseWatch NONE = new PauseWatch(false);
    /** A pause stops the whole process, so one watch serves every node in it. */
    private static PauseWatch process;

    private volatile long lastTick = System.nanoTime();
    /** The last pause noticed: the tick before it, and when it was noticed (far in the past before the first). */
    private volatile long pauseFrom = System.nanoTime() - 4 * AFTER_NANOS;
    private volatile long noticedAt = System.nanoTime() - 2 * AFTER_NANOS;
    private volatile long lastPauseNanos;
    private final Thread thread;

    /** The process's watch, started on first use; it runs as long as the process. */
    public static synchronized PauseWatch process() {
        if (process == null) process = new PauseWatch(true);
        return process;
    }

    private PauseWatch(boolean watch) {
        thread = watch ? Thread.ofPlatform().daemon().name("pause-watch").start(this::watch) : null;
    }

    private void watch() {
        while (true) {
            try {
                LockSupport.parkNanos(TICK_NANOS);
                long now = System.nanoTime();
                long before = lastTick;
                if (now - before > PAUSE_NANOS) {
                    lastPauseNanos = now - before;
                    pauseFrom = before;
                    noticedAt = now;
                    log.warn("the process stood still for {} ms (stopped, or a long GC pause); writes read in it or in the"
                            + " next {} ms are refused with 503, since their clients may have given up meanwhile",
                            TimeUnit.NANOSECONDS.toMillis(now - before), TimeUnit.NANOSECONDS.toMillis(AFTER_NANOS));
                }
                lastTick = now;
            } catch (Throwable t) {
                // Out of heap in the log line, say: the watch must go on ticking, or every write
                // would look read in a pause for good.
                lastTick = System.nanoTime();
            }
        }
    }

    /**
     * Whether a request read at {@code readNanos} may have waited through a pause: read during one
     * not yet noticed (the event loops may run before this thread), or from the tick before the
     * last one noticed until a second after it. The event loops read the requests queued during a
     * pause as soon as the process runs again; one read later than that second is taken as sent
     * after the pause. Asked with the read time, not the time it starts: a write pipelined behind
     * a long scan may start much later.
     */
    public boolean readJustAfterAPause(long readNanos) {
        if (thread == null || !thread.isAlive()) return false; // NONE, or a watch that stopped: no pause seen
        long now = System.nanoTime();
        long tick = lastTick;
        if (now - tick > PAUSE_NANOS && readNanos - tick >= 0) return true;
        return readNanos - pauseFrom >= 0 && readNanos - noticedAt < AFTER_NANOS;
    }

    /** How long the process stood still: the pause under way to be noticed, else the last one (0 before any). */
    public long pauseMillis() {
        long unnoticed = System.nanoTime() - lastTick;
        return TimeUnit.NANOSECONDS.toMillis(unnoticed > PAUSE_NANOS ? unnoticed : lastPauseNanos);
    }
}
