package dht.node.cluster;

import dht.storage.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cleanup after a join: a member removes the keys it no longer owns ({@link Store#purge}),
 * {@link #DELAY_MILLIS} after it takes the version that ends the join, or a later one after it
 * missed some (one of those may have ended a join). A leave or a removal it missed only added keys
 * to its share, so that cleanup would remove nothing.
 *
 * <p>Before it removes anything, a member sends the versions whose only copy is here and that it no
 * longer owns to their new owner. Its own join stream sent them, unless it was down and the others
 * stood in for it ({@link JoinReceiver}): they send every key with another old replica, but a
 * {@code from=1} version has none. Sending them again costs a scan and the moved {@code from=1}
 * versions, far less than the purge's compaction. If that fails the cleanup waits and tries again.
 *
 * <p>Invariant: the cleanup is marked pending in {@code DATA/cleanup-pending}, with the version
 * it is for, before that version is kept ({@link MembershipState#beforeKeeping}), and the mark is
 * removed only once a cleanup for that version or a later one is done. So a member killed anywhere
 * in between cleans up when it starts again, and a mark for a version it never kept (killed
 * between the two writes) waits until it takes that version.
 */
final class JoinCleanup {
    private static final Logger log = LoggerFactory.getLogger(JoinCleanup.class);
    static final long DELAY_MILLIS = 5_000;
    static final long RETRY_MILLIS = 30_000;
    private static final String PENDING = "cleanup-pending";

    private final String self;
    private final MembershipState state;
    private final Store store;
    private final Path dataDir;
    private final ScheduledExecutorService timer;
    private final RebalanceCounts counts;
    private final BooleanSupplier closed;
    private final SolePush solePush;
    /** Runs scheduled and not yet over ({@link #owed}); a run put off or failed schedules the next one first. */
    private final AtomicInteger scheduled = new AtomicInteger();
    /** A cleanup marked owed in this run and not yet done ({@link #owed}). */
    private volatile boolean markPending;

    /** Sends each version to the nodes {@code gainers} names ({@link DataPush#all}), marked as moved by the change at {@code version}. */
    @FunctionalInterface
    interface SolePush {
        void push(DataPush.Gainers gainers, long version) throws IOException;
    }

    JoinCleanup(String self, MembershipState state, Store store, Path dataDir, ScheduledExecutorService timer,
                RebalanceCounts counts, BooleanSupplier closed, SolePush solePush) {
        this.self = self;
        this.state = state;
        this.store = store;
        this.dataDir = dataDir;
        this.timer = timer;
        this.counts = counts;
        this.closed = closed;
        this.solePush = solePush;
    }

    /** Whether taking {@code next} over {@code before} owes a cleanup here (a join called off moved nothing: none). */
    private boolean owes(Membership before, Membership next) {
        boolean missedSome = next.version() > before.version() + 1;
        boolean joinEnded = before.joining().stream().anyMatch(next.members()::contains);
        return (joinEnded || missedSome) && !next.changing() && next.members().contains(self)
                && !before.joining().contains(self);
    }

    /** Before {@code next} is kept: marks the cleanup it owes pending. */
    void markOwed(Membership before, Membership next) {
        if (owes(before, next)) mark(next);
    }

    /** Once {@code next} is taken after {@code before}: schedules the cleanup it owes (marked again, in case that version was skipped before keeping). */
    void applied(Membership before, Membership next) {
        if (!owes(before, next)) return;
        mark(next);
        schedule(next, DELAY_MILLIS);
    }

    /**
     * At start, on {@code now}: a cleanup marked pending for it (or an earlier version) is made,
     * once no change is under way ({@link #run} waits one out; the end of a leave owes none itself).
     */
    void resume(Membership now) {
        long marked = marked();
        if (marked >= 0 && now.version() >= marked) schedule(now, DELAY_MILLIS);
    }

    /**
     * Whether a cleanup is owed here and not yet done: from its mark, made before the version that
     * owes it is kept (so before this node places by it), until its purge is over. Until then, keys
     * this node no longer owns still have a copy here beyond what their writes asked for, so the
     * move is not over ({@code rebalancing} in the status). A failed purge is tried again.
     */
    boolean owed() {
        return markPending || scheduled.get() > 0;
    }

    private void schedule(Membership m, long delayMillis) {
        scheduled.incrementAndGet();
        timer.schedule(() -> {
            try {
                run(m);
            } catch (RuntimeException e) {
                log.error("cleanup after membership version {} failed", m.version(), e);
            } finally {
                scheduled.decrementAndGet(); // a run that put itself off scheduled again first
            }
        }, delayMillis, TimeUnit.MILLISECONDS);
    }

    private void run(Membership m) {
        Membership now = state.current();
        if (closed.getAsBoolean() || now.version() != m.version() || now.changing()) {
            // moved on meanwhile: clean up for the version that holds once nothing is moving
            if (!closed.getAsBoolean()) schedule(now, DELAY_MILLIS);
            return;
        }
        Placement owners = new Placement(m.members());
        int rf = m.replicationFactor();
        if (!sentSoleCopies(m, owners, rf)) {
            schedule(m, DELAY_MILLIS);
            return;
        }
        try {
            // each version keeps the copies its write asked for (Topology#copies)
            long dropped = store.purge(e -> !owners.replicas(e.key(), Topology.copies(e, rf)).contains(self));
            counts.keysCleanedUp.addAndGet(dropped);
            if (marked() <= m.version()) { // not a newer version's mark
                Files.deleteIfExists(dataDir.resolve(PENDING));
                markPending = false;
            }
            log.info("cleanup after membership version {}: {} keys that other nodes own removed here", m.version(), dropped);
        } catch (IOException e) {
            // the copies stay (the move is not over): tried again, less often than a move's delay
            log.error("cleanup after membership version {} failed: {}; trying again in {} s", m.version(), e.toString(),
                    RETRY_MILLIS / 1000);
            schedule(m, RETRY_MILLIS);
        } catch (UnsupportedOperationException e) {
            log.error("cleanup after membership version {} failed: {}", m.version(), e.toString());
            markPending = false; // this store cannot purge: nothing will ever be done
        }
    }

    /** Sends the versions only this node holds that {@code m} places elsewhere; false if that failed. */
    private boolean sentSoleCopies(Membership m, Placement owners, int rf) {
        java.util.concurrent.atomic.AtomicLong sole = new java.util.concurrent.atomic.AtomicLong();
        try {
            solePush.push(e -> {
                if (Topology.copies(e, rf) != 1) return java.util.List.of();
                java.util.List<String> owner = owners.replicas(e.key(), 1);
                if (owner.contains(self)) return java.util.List.of();
                sole.incrementAndGet();
                return owner;
            }, m.version());
            log.info("cleanup after membership version {}: {} versions whose only copy was here sent to their new owners first",
                    m.version(), sole.get());
            return true;
        } catch (IOException e) {
            log.warn("cleanup after membership version {} put off {} s: the versions whose only copy is here could not all "
                    + "be sent to their new owners ({})", m.version(), DELAY_MILLIS / 1000, e.getMessage());
            return false;
        }
    }

    /** The version the pending mark is for; -1 if there is none, 0 if it cannot be read (clean up now). */
    private long marked() {
        try {
            return Long.parseLong(Files.readString(dataDir.resolve(PENDING)).strip());
        } catch (NoSuchFileException e) {
            return -1;
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    private void mark(Membership m) {
        markPending = true;
        try {
            Files.writeString(dataDir.resolve(PENDING), String.valueOf(m.version()));
        } catch (IOException e) {
            log.warn("cannot mark the cleanup pending: {}", e.toString());
        }
    }
}
