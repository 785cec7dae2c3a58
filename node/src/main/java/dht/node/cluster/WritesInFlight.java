package dht.node.cluster;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writes on their way to this node's store, counted from before they read the membership
 * version they are placed or checked by until their store write is over, so that a member about to
 * read its store for a join stream, or for a leave's or a removal's push, can first wait out every
 * write placed by an older version ({@link #awaitEarlier}).
 *
 * <p>Why: such a write was accepted (placed by this node as coordinator, or let through by its
 * fence as replica) while this node was on the version before, so it went to the old owners only.
 * Still queued for the store when the scan passed its key, it would land behind the scan: the new
 * owner would never get it, and the cleanup after the move would remove the old owner's copy. With
 * one copy (a grown one-node cluster) that loses an acknowledged write.
 *
 * <p>Invariants: {@link #awaitEarlier} returns true only once every write that entered before it
 * was called has left. A write that enters after that reads a membership version at least as new
 * as the one this node had when it was called, so it is placed (or checked) by the new version.
 * Writes are counted by cohort: the one current when they enter; each wait starts a new cohort and
 * waits for the ones before it, so counting costs a write two atomic updates and no lock.
 */
public final class WritesInFlight {
    private static final Logger log = LoggerFactory.getLogger(WritesInFlight.class);
    /**
     * How long a scan that moves data waits for earlier writes. Shorter than a joiner waits for a
     * stream's first answer (at least 5 s, {@code PeerScanStream}), so that the joiner hears the
     * failure and asks again rather than giving up on a sender still waiting.
     */
    static final Duration MOVE_WAIT = Duration.ofSeconds(4);

    /** Writes that entered before a scan that moves data were still not in the store after {@link #MOVE_WAIT}. */
    public static final class StillInFlightException extends IOException {
        StillInFlightException(String message) {
            super(message);
        }
    }

    /** The writes that entered while it was current. */
    public static final class Cohort {
        private final AtomicLong inFlight = new AtomicLong();
        /** The cohort before this one, until a wait has seen it and those before it empty. */
        private volatile Cohort before;

        private Cohort(Cohort before) {
            this.before = before;
        }

        /** The write that entered this cohort is over: applied, failed or refused. Once per enter. */
        public void leave() {
            inFlight.decrementAndGet();
        }
    }

    private final AtomicReference<Cohort> current = new AtomicReference<>(new Cohort(null));
    private final AtomicLong waitsTimedOut = new AtomicLong();

    /** Counts a write in: call before reading the version it is placed or checked by. */
    public Cohort enter() {
        for (;;) {
            Cohort c = current.get();
            c.inFlight.incrementAndGet();
            // Counted in a cohort a wait has already passed over? Then count in the new one.
            if (current.get() == c) return c;
            c.inFlight.decrementAndGet();
        }
    }

    /**
     * {@link #awaitEarlier} for a scan that moves data ({@code scan} names it in the failure), at
     * most {@link #MOVE_WAIT}, else {@link StillInFlightException}. A wait of over 100 ms is logged.
     */
    public void awaitBeforeMoving(String scan) throws IOException {
        long t0 = System.nanoTime();
        boolean done;
        try {
            done = awaitEarlier(MOVE_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(scan + ": interrupted waiting for writes placed by an earlier membership version");
        }
        long waited = (System.nanoTime() - t0) / 1_000_000;
        if (!done) {
            waitsTimedOut.incrementAndGet();
            throw new StillInFlightException(scan + ": writes placed by an earlier membership version still not in the store after "
                    + waited + " ms");
        }
        if (waited > 100) log.info("{} waited {} ms for writes placed by an earlier membership version", scan, waited);
    }

    /** The writes counted in now, for the status: a moment's sum, not one instant's. */
    public long inFlight() {
        long n = 0;
        for (Cohort c = current.get(); c != null; c = c.before) n += c.inFlight.get();
        return n;
    }

    /** Waits of {@link #awaitBeforeMoving} that ran out before the writes left, since start. */
    public long waitsTimedOut() {
        return waitsTimedOut.get();
    }

    /**
     * Waits until every write that entered before this call has left, at most {@code max}; false
     * if some had not by then. Call once this node is on the version the scan is for.
     */
    public boolean awaitEarlier(Duration max) throws InterruptedException {
        Cohort started;
        Cohort earlier;
        do {
            earlier = current.get();
            started = new Cohort(earlier);
        } while (!current.compareAndSet(earlier, started));
        long deadline = System.nanoTime() + max.toNanos();
        for (Cohort c = earlier; c != null; c = c.before) {
            while (c.inFlight.get() != 0) {
                if (System.nanoTime() - deadline >= 0) return false;
                Thread.sleep(1);
            }
        }
        started.before = null; // all before it were seen empty: nothing more to wait for there
        return true;
    }
}
