package dht.node.admin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import one.profiler.AsyncProfiler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Profiles this JVM with async-profiler for a while and returns an HTML flame graph: what the
 * admin endpoint {@code GET /admin/profile?event=cpu&duration=10s} serves. Invariants: at most one
 * profile runs at a time (async-profiler has one session per process), a second request fails at
 * once with {@link BusyException}; the profiler is always stopped and the temporary file deleted,
 * whatever happens; nothing blocks the caller (the stop runs on a timer thread).
 */
public final class Profiler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Profiler.class);

    /** Events that work on these machines (no hardware counters in a VM). */
    public static final List<String> EVENTS = List.of("cpu", "alloc", "lock", "wall", "itimer", "ctimer");
    public static final Duration MIN_DURATION = Duration.ofMillis(100);
    public static final Duration MAX_DURATION = Duration.ofMinutes(10);

    /** A profile was asked for while another one runs. */
    public static final class BusyException extends IllegalStateException {
        public BusyException(String message) {
            super(message);
        }
    }

    /** async-profiler could not be loaded or refused the command. */
    public static final class UnavailableException extends IllegalStateException {
        public UnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private record Running(String event, long startedNanos, Duration duration) {
    }

    private final AtomicReference<Running> running = new AtomicReference<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "profiler-timer");
        t.setDaemon(true);
        return t;
    });
    private final Path tempDir;

    public Profiler() {
        this(Path.of(System.getProperty("java.io.tmpdir")));
    }

    public Profiler(Path tempDir) {
        this.tempDir = tempDir;
    }

    /**
     * Starts profiling {@code event} now; the future completes after {@code duration} with the
     * HTML flame graph, or fails with IllegalArgumentException (bad event or duration, for a
     * 400), BusyException (for a 409) or UnavailableException (for a 500/503). With
     * {@code byThread}, each thread's samples form a tree of their own (async-profiler's
     * {@code threads} option: the thread's name and id as the first frame), so that a wall profile
     * shows where each thread waits rather than all of them merged.
     */
    public CompletableFuture<byte[]> profile(String event, Duration duration, boolean byThread) {
        if (event == null || !EVENTS.contains(event)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "unknown profiling event '" + event + "'; use one of " + String.join(", ", EVENTS)));
        }
        if (duration == null || duration.compareTo(MIN_DURATION) < 0 || duration.compareTo(MAX_DURATION) > 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "profiling duration must be between " + MIN_DURATION.toMillis() + "ms and " + MAX_DURATION.toMinutes() + "m"));
        }
        Running mine = new Running(event, System.nanoTime(), duration);
        Running other = running.compareAndExchange(null, mine);
        if (other != null) {
            long elapsed = (System.nanoTime() - other.startedNanos()) / 1_000_000;
            return CompletableFuture.failedFuture(new BusyException("a " + other.event() + " profile is already running ("
                    + elapsed + " ms of " + other.duration().toMillis() + " ms); one profile at a time"));
        }
        AsyncProfiler profiler;
        try {
            profiler = AsyncProfiler.getInstance();
            // 1 ms CPU sampling: enough samples for a flame graph of a few seconds (the default is 10 ms)
            String interval = event.equals("cpu") || event.endsWith("timer") ? ",interval=1ms" : "";
            // loglevel=WARN: the profiler's own INFO lines ("No samples were collected") went to the
            // node's stdout unformatted, outside its log; what matters is logged here instead.
            profiler.execute("start,event=" + event + interval + (byThread ? ",threads" : "") + ",loglevel=WARN");
        } catch (Throwable e) { // UnsatisfiedLinkError from the native library, IllegalStateException, IOException
            running.set(null);
            log.warn("profiler unavailable: event={} cause={}", event, e.toString());
            return CompletableFuture.failedFuture(new UnavailableException("async-profiler could not start " + event + ": " + e.getMessage(), e));
        }
        log.info("profiling started: event={} duration={}ms byThread={}", event, duration.toMillis(), byThread);
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        timer.schedule(() -> stop(profiler, mine, result), duration.toNanos(), TimeUnit.NANOSECONDS);
        return result;
    }

    private void stop(AsyncProfiler profiler, Running mine, CompletableFuture<byte[]> result) {
        Path file = null;
        try {
            file = Files.createTempFile(tempDir, "dht-profile-" + mine.event() + "-", ".html");
            profiler.execute("stop,file=" + file + ",flamegraph,loglevel=WARN");
            byte[] html = Files.readAllBytes(file);
            log.info("profiling done: event={} bytes={}", mine.event(), html.length);
            release(file);
            file = null;
            result.complete(html); // after the release: a caller may start the next profile at once
        } catch (Throwable e) {
            log.warn("profiling failed: event={} cause={}", mine.event(), e.toString());
            try {
                profiler.stop();
            } catch (IllegalStateException alreadyStopped) {
                log.debug("profiler already stopped: {}", alreadyStopped.getMessage());
            }
            release(file);
            file = null;
            result.completeExceptionally(new UnavailableException("profile " + mine.event() + " failed: " + e.getMessage(), e));
        } finally {
            if (file != null) {
                release(file); // only on an Error thrown by complete's callbacks
            }
        }
    }

    /** Deletes the temporary file (if any) and lets the next profile start. */
    private void release(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                log.warn("could not delete profile temp file {}: {}", file, e.toString());
            }
        }
        running.set(null);
    }

    /** Whether a profile is running now. */
    public boolean busy() {
        return running.get() != null;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        if (running.get() != null) {
            try {
                AsyncProfiler.getInstance().stop();
            } catch (Throwable e) {
                log.debug("profiler stop on close: {}", e.toString());
            }
        }
    }
}
