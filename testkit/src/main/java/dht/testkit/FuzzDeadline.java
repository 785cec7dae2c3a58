package dht.testkit;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs one fuzz input with a deadline, so an endless loop is a finding like any other (its input
 * saved and replayed) rather than a build that never ends. JUnit's {@code @Timeout} cannot do it:
 * in fuzzing mode it bounds the whole run of a fuzz test, not one input. The work runs on one
 * reused thread; a stuck one is abandoned for a new one. Every input gets {@value #SECONDS} s but
 * the first one a JVM runs, which may be given longer: it also loads (and has Jazzer instrument)
 * every class it touches.
 */
public final class FuzzDeadline {
    public static final long SECONDS = 5;
    /** What the node's first input gets: it loads Netty's classes, over 5 s on a loaded machine. */
    public static final long FIRST_LOADING_NETTY_SECONDS = 60;
    private static boolean warm;
    private static ExecutorService worker = newWorker();

    public interface Work {
        void run() throws Exception;
    }

    private FuzzDeadline() {}

    private static ExecutorService newWorker() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-input");
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs {@code work}, rethrowing what it throws; fails if it has not returned within {@value #SECONDS} s. */
    public static void run(Work work) throws Exception {
        run(SECONDS, work);
    }

    /**
     * The same, the first input of this JVM given {@code firstSeconds} instead of {@value #SECONDS}.
     */
    public static synchronized void run(long firstSeconds, Work work) throws Exception {
        Future<?> f = worker.submit(() -> {
            work.run();
            return null;
        });
        long seconds = warm ? SECONDS : firstSeconds;
        try {
            f.get(seconds, TimeUnit.SECONDS);
            warm = true;
        } catch (TimeoutException e) {
            worker = newWorker();
            throw new AssertionError("the input was not handled within " + seconds + " s: an endless loop?");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) throw x;
            if (e.getCause() instanceof Error x) throw x;
            throw e;
        }
    }
}
