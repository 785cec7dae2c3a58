package dht.node.http;

import dht.node.text.LineThrottle;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * While the {@link ConnectionLimit} refuses connections, closes the open ones that have had nothing
 * to do for {@link #QUIET} instead of the idle timeout, as Jetty's low-resources monitor does: a
 * client holding every place with heads it never finishes (a tester's 1,000 connections of 15 KB
 * each) otherwise kept everyone out, health checks included, for the idle timeout (60 s), and could
 * do so again by reconnecting once a minute. Quiet means what it means to {@link IdleTimeout}: no
 * request read, none answered, no body arriving; bytes of a head alone are not activity.
 *
 * <p>Each refusal asks for a sweep; at most one runs every {@link #EVERY}. A sweep asks every open
 * connection, on its own event loop, whether it has been quiet since a sweep at least {@link #QUIET}
 * before ({@link IdleTimeout#underPressure}), so one quiet for that long is closed by the second
 * sweep that finds it so. Costs nothing while connections are not refused.
 */
final class PressureSweep {
    private static final Logger log = LoggerFactory.getLogger(PressureSweep.class);
    static final long QUIET = TimeUnit.SECONDS.toNanos(1);
    static final long EVERY = TimeUnit.MILLISECONDS.toNanos(500);

    private final Set<IdleTimeout> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong lastSweep = new AtomicLong(System.nanoTime() - EVERY);
    private final LineThrottle closedLine = new LineThrottle(Duration.ofSeconds(10));

    void opened(IdleTimeout c) {
        open.add(c);
    }

    void gone(IdleTimeout c) {
        open.remove(c);
    }

    /** A connection was refused for the bound: sweeps, unless one ran less than {@link #EVERY} ago. */
    void refused() {
        long now = System.nanoTime();
        long last = lastSweep.get();
        if (now - last < EVERY || !lastSweep.compareAndSet(last, now)) return;
        for (IdleTimeout c : open) c.underPressure();
    }

    /** Called by a connection closed under pressure: one line per 10 s at most, with the count since the last. */
    void closedOne() {
        long closedSince = closedLine.occurred();
        if (closedSince > 0) {
            log.warn("at the connection limit: closing connections that have had nothing to do for {} s; {} closed since "
                    + "the last such line", TimeUnit.NANOSECONDS.toSeconds(QUIET), closedSince);
        }
    }
}
