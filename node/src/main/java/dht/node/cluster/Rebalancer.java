package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.Store;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves data when the membership changes, and keeps this node's membership current:
 * <ul>
 *   <li>joining: reads each member's join stream and ends the join ({@link JoinReceiver});</li>
 *   <li>leaving ({@link #leave}): pushes each version of its store to the nodes that gain the key
 *       (internal batches of writes, {@link DataPush}), then ends the leave;</li>
 *   <li>a member removed: for each key the dead node held, the first surviving old replica pushes
 *       its version to the nodes that gain the key;</li>
 *   <li>a join done: removes the keys this node no longer owns ({@link Store#purge}), a few
 *       seconds after, once every coordinator reads from the new owners.</li>
 * </ul>
 * The join streams a member sends are served by the scan route; they count here ({@link #joinStreams}).
 * Every {@link MembershipChanges#SYNC_MILLIS} it asks a peer for its membership version.
 */
public final class Rebalancer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Rebalancer.class);
    /** How long a join's stream, or a leave's push, takes to reach the budget (ByteRate#ramping). */
    static final long RAMP_SECONDS = 20;

    private final String self;
    private final MembershipChanges changes;
    private final PeerNetwork net;
    private final DataPush pushes;
    private final Store store;
    private final RebalanceCounts counts = new RebalanceCounts();
    /** How long after a peer's last pushed batch this node still reports receiving. */
    static final long RECEIVING_NANOS = TimeUnit.SECONDS.toNanos(10);
    private final JoinStreams joinStreams;
    /** The hints this node holds for each member: its own and those handed over to it. */
    private final HeldHints held;
    private final WritesInFlight writes;
    private final ScheduledExecutorService timer;
    private final JoinCleanup cleanup;
    private final JoinReceiver receiver;
    private final RemovalMark removals;
    private final HybridLogicalClock clock;
    /** Versions older than this are not pushed by a node removed while it ran ({@link RemovedWhileRunning}). */
    private final java.time.Duration tombstoneGrace;
    private final CompletableFuture<Void> left = new CompletableFuture<>();
    private volatile boolean closed;
    private boolean joinRunning; // guarded by this
    private CompletableFuture<Membership> leaving; // guarded by this: the leave running here, or null
    private Membership seen; // guarded by this

    /** The hints a node holds for one member, whatever their source, oldest first in each source. */
    interface HeldHints {
        List<HintBatch> of(String member);
    }

    /**
     * A leave passes on the hints this node {@code held} for the members that stay; a scan that
     * moves data first waits out the {@code writes} this node accepted under an earlier version.
     */
    Rebalancer(String self, MembershipChanges changes, PeerNetwork net, Store store, HybridLogicalClock clock,
               long bytesPerSecond, MembershipTransport transport, Path dataDir, HeldHints held,
               WritesInFlight writes, java.time.Duration tombstoneGrace) {
        this.clock = clock;
        this.tombstoneGrace = tombstoneGrace;
        this.held = held;
        this.self = self;
        this.changes = changes;
        this.net = net;
        this.store = store;
        this.timer = Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("membership").factory());
        this.writes = writes;
        this.joinStreams = new JoinStreams(changes.state(), writes, counts, store::stats);
        ByteRate rate = ByteRate.ramping(bytesPerSecond, RAMP_SECONDS);
        this.removals = new RemovalMark(dataDir);
        this.pushes = new DataPush(self, changes, net, store, rate, transport, counts, writes, () -> closed,
                new PushProgress(dataDir));
        this.cleanup = new JoinCleanup(self, changes.state(), store, dataDir, timer, counts, () -> closed,
                (gainers, version) -> {
                    counts.readingAgain(store.stats()); // the push reads the whole store
                    pushes.all(gainers, (peer, batch, bytes) -> pushes.send(peer, batch, bytes, version), true);
                });
        this.receiver = new JoinReceiver(self, changes, net, store, clock, rate, transport, dataDir, counts, () -> closed);
    }

    public void start() {
        Membership now;
        synchronized (this) {
            now = changes.state().current();
            seen = now;
        }
        changes.state().beforeKeeping(cleanup::markOwed);
        changes.state().beforeKeeping((before, next) -> {
            for (String gone : removedBy(before, next)) removals.mark(before, next, gone);
        });
        changes.state().listen(this::applied);
        if (now.joining().contains(self)) startJoin();
        cleanup.resume(now);
        resumeRemovalPush();
        timer.scheduleWithFixedDelay(changes::syncOnce, MembershipChanges.SYNC_MILLIS, MembershipChanges.SYNC_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /** Completes once this node has left the cluster (its leave done). */
    public CompletableFuture<Void> left() {
        return left;
    }

    public Map<String, Long> counts() {
        Map<String, Long> m = counts.snapshot();
        Membership now = changes.state().current();
        // Joining or leaving, data is still to move even between two tries of a stream or push; and
        // while a member leaves, the other members receive what it pushes until its leave ends
        // (leaving is a subset of members; a removed node still running is in neither).
        if (now.joining().contains(self) || !now.leaving().isEmpty() && now.members().contains(self)) {
            counts.takingPart(now.version());
            m = counts.snapshot();
            m.put("rebalancing", 1L);
            if (m.get("etaMillis") == 0) m.put("etaMillis", -1L); // between two tries, or the sender's to know
        }
        // after a join, until this node has removed the copies it no longer owns (JoinCleanup)
        if (cleanup.owed()) m.put("rebalancing", 1L);
        // a removal's pushers' batches still arriving (at the default budget, several a second)
        if (counts.movedInWithin(RECEIVING_NANOS, now.version())) m.put("rebalancing", 1L);
        m.put("writesInFlight", writes.inFlight());
        m.put("moveWaitsTimedOut", writes.waitsTimedOut());
        return m;
    }

    /** Versions a peer pushed here for the change at {@code version} (ReplicaService#movedIn). */
    void movedIn(long version, int keys, long bytes) {
        counts.movedIn(version, keys, bytes);
    }

    /** The join streams this node sends as a member, counted in {@link #counts}. */
    public JoinStreams joinStreams() {
        return joinStreams;
    }

    private void applied(Membership m) {
        Membership before;
        synchronized (this) {
            before = seen;
            seen = m;
        }
        if (m.joining().contains(self)) startJoin();
        cleanup.applied(before, m);
        for (String gone : removedBy(before, m)) {
            Thread.ofVirtual().name("re-replicate").start(() -> reReplicate(before, m, gone));
        }
        if (RemovedWhileRunning.removes(self, before, m)) {
            Thread.ofVirtual().name("removed-push").start(() -> RemovedWhileRunning.push(m, pushes, clock, tombstoneGrace));
        }
    }

    /** The members {@code next} removes (dropped, not leaving) when this node stays: it owes their copies a push. */
    private List<String> removedBy(Membership before, Membership next) {
        List<String> gone = new ArrayList<>();
        if (!next.members().contains(self)) return gone;
        for (String g : before.members()) {
            if (!next.all().contains(g) && !before.leaving().contains(g)) gone.add(g);
        }
        return gone;
    }

    /**
     * At start: the push after a removal, cut short by a crash, is made again if that removal is
     * still current once this node has caught up with the versions it missed while down (a few
     * seconds after start, past {@link MembershipChanges#catchUp}'s wait).
     */
    private void resumeRemovalPush() {
        RemovalMark.Pending p = removals.pending();
        if (p == null) return;
        timer.schedule(() -> {
            Membership now = changes.state().current();
            if (!p.current(now) || !now.members().contains(self)) {
                log.info("the push owed after the removal of {} is no longer owed: membership version {} (anti-entropy "
                        + "brings any copy it did not make)", p.gone(), now.version());
                removals.clear(p.gone());
                return;
            }
            log.info("resuming the push that re-creates the copies {} held, cut short before this start", p.gone());
            Thread.ofVirtual().name("re-replicate").start(() -> reReplicate(p.before(), now, p.gone()));
        }, 2 * MembershipChanges.SYNC_MILLIS, TimeUnit.MILLISECONDS);
    }

    // ------------------------------------------------------------------ joining

    private synchronized void startJoin() {
        if (joinRunning || closed) return;
        joinRunning = true;
        Thread.ofVirtual().name("join-stream").start(this::join);
    }

    private void join() {
        counts.active.incrementAndGet();
        try {
            receiver.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            log.error("joining stopped: {}", e.toString());
        } finally {
            counts.active.decrementAndGet();
            synchronized (this) {
                joinRunning = false;
            }
        }
    }

    // ------------------------------------------------------------------ leaving and re-replicating

    /** This node leaves: it pushes its versions to the keys' new owners, then leaves the membership. */
    public Membership leave(String url) throws MembershipChangeException {
        if (!url.equals(self)) {
            throw new MembershipChangeException(400, "this node is " + self + " in the cluster, not " + url
                    + ": a leave names the node by that URL (and is sent to it)");
        }
        CompletableFuture<Membership> run;
        CompletableFuture<Membership> mine = new CompletableFuture<>();
        synchronized (this) {
            run = leaving;
            if (run == null) leaving = mine;
        }
        if (run != null) return answerOf(run); // asked again while it runs (the first call timed out): one leave, both answered
        try {
            Membership done = leaveOnce();
            mine.complete(done);
            left.complete(null); // after the answers: the node stops once it has left
            return done;
        } catch (MembershipChangeException | RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            synchronized (this) {
                leaving = null;
            }
        }
    }

    private static Membership answerOf(CompletableFuture<Membership> run) throws MembershipChangeException {
        try {
            return run.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MembershipChangeException(503, "interrupted", MembershipChangeException.Outcome.UNKNOWN);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof MembershipChangeException m) {
                throw new MembershipChangeException(m.status(), m.getMessage(), m.outcome());
            }
            throw new MembershipChangeException(500, "leaving failed: " + e.getCause(), MembershipChangeException.Outcome.UNKNOWN);
        }
    }

    private Membership leaveOnce() throws MembershipChangeException {
        Membership m = changes.leave(self);
        try {
            return leaveAgreed(m);
        } catch (MembershipChangeException e) {
            throw e.outcome() == MembershipChangeException.Outcome.NOTHING_CHANGED
                    ? new MembershipChangeException(e.status(), e.getMessage(), MembershipChangeException.Outcome.UNDER_WAY) : e;
        } catch (RuntimeException e) {
            throw new MembershipChangeException(500, "leaving failed (" + e + "); the node is still leaving: repeat the leave to go on",
                    MembershipChangeException.Outcome.UNDER_WAY);
        }
    }

    /** The leave once agreed: this node is leaving from here on, whatever fails. */
    private Membership leaveAgreed(Membership m) throws MembershipChangeException {
        // Its writes are placed by the leaving version from here on only if this node took it (a
        // commit that failed here is only logged): else a write could still land behind the push.
        if (changes.state().current().version() < m.version()) {
            throw new MembershipChangeException(503, "leaving: this node has not taken membership version " + m.version()
                    + " yet; repeat the leave to go on");
        }
        // This leave's own counts for its log line: the status's figures may start over under it.
        java.util.concurrent.atomic.AtomicLong keysSent = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong bytesSent = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong keysHanded = new java.util.concurrent.atomic.AtomicLong();
        counts.active.incrementAndGet();
        try {
            counts.begin(m.version(), store.stats());
            Placement before = new Placement(m.members());
            Placement after = new Placement(m.owners());
            int rf = m.replicationFactor();
            // A member that missed this version, is down, or fails a push (down since, perhaps
            // for good: the leave must still end, or no change could follow) cannot take its keys
            // now: a live member keeps them for it as hints, delivered once it is back
            // (HandedOverHints). The keys it gains and the hints held here for it go the same way.
            java.util.Set<String> failed = new java.util.HashSet<>();
            DataPush.Sender toMember = (peer, batch, bytes) -> {
                keysSent.addAndGet(batch.size());
                bytesSent.addAndGet(bytes);
                if (!m.laggards().contains(peer) && !failed.contains(peer) && net.isUp(peer)) {
                    try {
                        pushes.send(peer, batch, bytes, m.version());
                        return;
                    } catch (IOException e) {
                        log.warn("leaving: pushing to {} failed ({}); a live member keeps its keys for it", peer, e.getMessage());
                        failed.add(peer);
                    }
                }
                keysHanded.addAndGet(batch.size());
                pushes.handOver(pushes.holder(m, peer), peer, batch, bytes);
            };
            pushes.all("leave@" + m.version(), e -> {
                int n = Topology.copies(e, rf);
                List<String> gain = new ArrayList<>(after.replicas(e.key(), n));
                gain.removeAll(before.replicas(e.key(), n));
                return gain;
            }, toMember, false);
            passOnHints(m, after, rf, toMember);
        } catch (IOException | RuntimeException e) {
            throw new MembershipChangeException(503, "leaving: moving the data failed (" + e.getMessage()
                    + "); the node is still leaving: repeat the leave to go on");
        } finally {
            counts.active.decrementAndGet();
        }
        // The version without this node was taken here before any member had it, and kept once
        // one had (MembershipChanges#takeFirst), so that a restart on this data directory is
        // refused instead of serving a cluster it is no longer in. Had no member taken it, it is
        // not kept: a restart is still leaving, and the leave can be repeated.
        Membership done = changes.left(self);
        String handed = m.laggards().isEmpty() ? ""
                : " (" + keysHanded.get() + " kept by a member for " + m.laggards() + ", which was down)";
        log.info("left the cluster: {} keys, {} bytes sent{}; membership version {}", keysSent.get(), bytesSent.get(),
                handed, done.version());
        return done;
    }

    /**
     * After {@code gone} was removed: this node pushes the keys it is the first surviving old
     * replica of. A gainer that missed the removal (down: the version's laggard), or is down or
     * fails a push now, gets them kept here on disk as a hand-over, delivered once it is back, so
     * one such gainer does not end the push to the others. The pusher of a key is its first
     * surviving old replica that is not a laggard of the removal; a laggard only where no other
     * survives, when it takes the version.
     */
    private void reReplicate(Membership before, Membership after, String gone) {
        java.util.concurrent.atomic.AtomicLong keysSent = new java.util.concurrent.atomic.AtomicLong(); // this push's own, for its log line
        counts.active.incrementAndGet();
        try {
            counts.begin(after.version(), store.stats());
            Placement old = new Placement(before.members());
            Placement now = new Placement(after.members());
            int rf = after.replicationFactor();
            pushes.all("removal@" + after.version() + "-" + gone, e -> {
                int n = Topology.copies(e, rf);
                List<String> o = old.replicas(e.key(), n);
                if (!o.contains(gone)) return List.of();
                List<String> survivors = new ArrayList<>(o);
                survivors.remove(gone);
                // The first that did not miss the removal: up all along, it holds every acknowledged
                // write, and pushes now (a laggard would push at its return, before its hints arrive,
                // or never, if it is removed in turn). A laggard pushes only where it survives alone.
                List<String> upToDate = new ArrayList<>(survivors);
                upToDate.removeAll(after.laggards());
                List<String> pushers = upToDate.isEmpty() ? survivors : upToDate;
                if (pushers.isEmpty() || !pushers.getFirst().equals(self)) return List.of();
                List<String> gain = new ArrayList<>(now.replicas(e.key(), n));
                gain.removeAll(o);
                return gain;
            }, (peer, batch, bytes) -> {
                keysSent.addAndGet(batch.size());
                if (after.laggards().contains(peer) || !net.isUp(peer)) {
                    pushes.keepFor(peer, batch, bytes);
                    return;
                }
                try {
                    pushes.send(peer, batch, bytes, after.version());
                } catch (IOException e) { // down since: kept like a laggard's, so the push goes on to the others
                    log.warn("re-creating the copies {} held: {}; kept here for it instead", gone, e.getMessage());
                    pushes.keepFor(peer, batch, bytes);
                }
            }, true);
            if (closed) return; // cut short: the mark stays, and the next start pushes again
            removals.clear(gone);
            log.info("re-created the copies {} held that this node is first to hold: {} keys sent", gone,
                    keysSent.get());
        } catch (IOException | RuntimeException e) {
            if (closed) {
                log.info("re-creating the copies {} held: cut short by this node's stop; its next start pushes again", gone);
            } else {
                log.error("re-creating the copies {} held failed: {} (anti-entropy or bin/dht repair can finish it)", gone, e.toString());
            }
        } finally {
            counts.active.decrementAndGet();
        }
    }

    /**
     * The hints this node holds for the members that stay would leave with it: its own (writes it
     * coordinated while a replica was down) and those handed over to it (for a member that missed
     * an earlier change). Each goes, by {@code sender}, as the keys the member gains go: to it, or
     * to a live member that keeps it until the member can take it; only versions the member still
     * holds once the leave is done. They stay held here too; newest wins on delivery.
     */
    private void passOnHints(Membership m, Placement after, int rf, DataPush.Sender sender) throws IOException {
        for (String member : m.owners()) {
            if (member.equals(self)) continue;
            long passed = 0;
            for (HintBatch b : held.of(member)) {
                List<Entry> entries = new ArrayList<>();
                for (Entry e : b.entriesOrIOException()) {
                    if (after.replicas(e.key(), Topology.copies(e, rf)).contains(member)) entries.add(e);
                }
                DataPush.inBatches(member, entries, sender); // a batch of hints has no bound in bytes
                passed += entries.size();
            }
            if (passed > 0) log.info("leaving: {} hinted write(s) this node held for {} passed on", passed, member);
        }
    }

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
    }
}
