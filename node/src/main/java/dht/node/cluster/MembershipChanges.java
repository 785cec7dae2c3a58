package dht.node.cluster;

import dht.storage.Entry;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Membership changes, agreed by two phases run from the node that was asked (the coordinator of
 * the change): every node that stays in the cluster is asked to prepare version V+1 over V (it
 * refuses if its version is not V, or if it holds another change's prepare, a {@link PrepareLease});
 * only when all have prepared is V+1 committed to each, which keeps it in
 * its data directory and uses it. A refusal or a node that does not answer aborts the change, and
 * nothing changes. Two changes at once cannot both prepare everywhere, so they cannot leave the
 * members on different versions V+1. A commit that does not reach a node (it crashed meanwhile)
 * reaches it later: every node asks its peers for their version every {@link #SYNC_MILLIS} and
 * takes a newer one.
 *
 * <p>Every change may go on with one member down: a majority prepared, the version records the one
 * that did not (its laggard), and no other change is agreed until it has caught up ({@code change}
 * states the invariant). Not a join with one copy of each key, which would wait for the member
 * ({@link JoinReceiver}). This is not consensus: a coordinator that dies between the phases leaves
 * the prepared nodes locked until the lease ends (docs/design.md, "Membership").
 */
public final class MembershipChanges {
    private static final Logger log = LoggerFactory.getLogger(MembershipChanges.class);
    public static final long SYNC_MILLIS = 2_000;

    private final MembershipState state;
    private final MembershipTransport transport;
    private final Predicate<String> isUp;
    private final HandOver handOver;
    private final Object coordinating = new Object();
    private final AtomicLong changes = new AtomicLong();
    private final PrepareLease lease = new PrepareLease();
    private int syncTurn;

    public MembershipChanges(MembershipState state, MembershipTransport transport, Predicate<String> isUp) {
        this(state, transport, isUp, null);
    }

    /** @param handOver where versions handed over for a member that is down are kept (null: refused) */
    public MembershipChanges(MembershipState state, MembershipTransport transport, Predicate<String> isUp,
                             HandOver handOver) {
        this.state = state;
        this.transport = transport;
        this.isUp = isUp;
        this.handOver = handOver;
    }

    /** Keeps versions handed over for a member, until it can take them ({@link HandedOverHints}). */
    @FunctionalInterface
    public interface HandOver {
        void hold(String member, List<Entry> entries) throws IOException;
    }

    public MembershipState state() {
        return state;
    }

    // ------------------------------------------------------------------ participant

    /** Phase one here: promises to take {@code proposal} over version {@code expect}, unless already promised elsewhere. */
    public synchronized void prepare(long expect, String id, Membership proposal) throws MembershipChangeException {
        Membership cur = state.current();
        if (cur.version() != expect) {
            throw new MembershipChangeException(409, state.self() + " is at membership version " + cur.version()
                    + ", not " + expect + ": another change came first; retry");
        }
        if (proposal.version() != expect + 1) throw new MembershipChangeException(400, "a proposal must be version " + (expect + 1));
        lease.take(id, expect, System.currentTimeMillis(), state.self());
    }

    /** Phase two here: keeps and uses {@code proposal}. */
    public void commit(String id, Membership proposal) throws IOException {
        state.apply(proposal);
        lease.end(id);
    }

    public void abort(String id) {
        lease.end(id);
    }

    /**
     * The versions of the keys {@code member} gains, which it cannot take now (a leave or removal
     * went on while it was down: the version's laggard, or it is down): kept here until it can.
     */
    public void handOver(String member, List<Entry> entries) throws MembershipChangeException {
        if (member.equals(state.self()) || !state.current().all().contains(member)) {
            throw new MembershipChangeException(409, member + " is not another member of " + state.self() + "'s cluster");
        }
        if (handOver == null) throw new MembershipChangeException(409, state.self() + " keeps no hand-over");
        try {
            handOver.hold(member, entries);
        } catch (IOException e) {
            throw new MembershipChangeException(503, "hand-over for " + member + " not kept on " + state.self() + ": "
                    + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ coordinator

    /** {@code url} joins: it will get writes at once, and reads once its data has arrived ({@link #joined}). */
    public Membership join(String url) throws MembershipChangeException {
        return join(url, -1);
    }

    /**
     * As {@link #join(String)}, for a joiner that already serves on the version it expects:
     * {@code expect} (-1: none) is the version the joiner started from, and the join is refused,
     * nothing changed, unless it is still current and the joiner answers at {@code url} with the
     * very version this join agrees on. So members never route writes to a node that cannot take
     * them yet (they would time out and become hints, docs/benchmarks.md, "Client p99 during a
     * join"), nor to a {@code --self} that does not reach it.
     */
    public Membership join(String url, long expect) throws MembershipChangeException {
        if (expect >= 0) {
            Membership cur = state.current();
            refuseJoin(cur, url, expect); // before asking the joiner: the cheap refusals first
            Membership theirs;
            try {
                theirs = ask(url);
            } catch (MembershipChangeException | IllegalArgumentException e) {
                throw new MembershipChangeException(409, url + " does not answer at its URL from " + state.self()
                        + " (" + e.getMessage() + "): is --self the URL the members reach it by?");
            }
            if (!theirs.equals(cur.withJoining(url))) {
                throw new MembershipChangeException(409, url + " serves membership version " + theirs.version()
                        + " with members " + theirs.members() + " and joining " + theirs.joining()
                        + ", not the version its join would agree on");
            }
        }
        // One copy of each key: only the member holds its keys, and the join would wait for it.
        Missing missing = state.current().replicationFactor() >= 2 ? Missing.ONE_NEW : Missing.NONE;
        return change("join of " + url, missing, cur -> {
            refuseJoin(cur, url, expect);
            return cur.withJoining(url);
        });
    }

    /** Refuses {@code url}'s join over {@code cur}: already in it, a change under way, or (with {@code expect} 0 or more) another version. */
    private static void refuseJoin(Membership cur, String url, long expect) throws MembershipChangeException {
        if (cur.all().contains(url)) throw new MembershipChangeException(409, url + " is already a member");
        cur.refuseWhileChanging();
        if (expect >= 0 && cur.version() != expect) {
            throw new MembershipChangeException(409, "the membership moved on (version " + cur.version() + ", the joiner"
                    + " started from " + expect + "); start the joiner again");
        }
    }

    /** {@code url}'s data has arrived: it becomes a member that serves reads. Repeating it is harmless. */
    public Membership joined(String url) throws MembershipChangeException {
        // One member may miss it: one down for good mid-join, whose keys the others sent instead
        // (JoinReceiver), is then this version's laggard, and can be removed; the start's laggard too.
        return change("end of the join of " + url, Missing.ONE_CONTINUING, cur -> {
            if (cur.members().contains(url) && !cur.joining().contains(url)) return null;
            if (!cur.joining().contains(url)) throw new MembershipChangeException(409, url + " is not joining");
            return cur.settled();
        });
    }

    /** {@code url} starts leaving: it keeps serving reads while its data moves to the new owners. */
    public Membership leave(String url) throws MembershipChangeException {
        return change("leave of " + url, Missing.ONE_NEW, cur -> {
            if (cur.joining().contains(url)) {
                throw new MembershipChangeException(409, url + " is joining: it can leave once its join has ended");
            }
            if (!cur.members().contains(url)) throw MembershipChangeException.notAMember(url, cur.members());
            if (cur.leaving().contains(url)) return null;
            cur.refuseWhileChanging();
            cur.refuseBelowReplicationFactor(url);
            return cur.withLeaving(url);
        });
    }

    /** {@code url}'s data has moved: it is no longer a member. */
    public Membership left(String url) throws MembershipChangeException {
        return change("end of the leave of " + url, Missing.ONE_CONTINUING, cur -> {
            if (!cur.all().contains(url)) return null;
            if (!cur.leaving().contains(url)) throw new MembershipChangeException(409, url + " is not leaving");
            return cur.settled();
        });
    }

    /**
     * Drops {@code url}, a member dead for good; the others re-create the copies it held. Like a
     * leave, it goes on with one other member down (its laggard), when a majority prepared. A
     * joining node that is down is dropped too: its join is called off, and the members own what
     * they owned before it (each write acknowledged meanwhile reached {@code ack} of them,
     * {@link MovingWriteQuorum}), so nothing moves; else a joiner dead for good would hold every
     * later change off for ever. A leaving node that is down has its leave called off first
     * ({@link #callOffLeave}), and is then removed as a member.
     */
    public Membership remove(String url) throws MembershipChangeException {
        if (state.current().leaving().contains(url)) callOffLeave(url);
        return change("removal of " + url, Missing.ONE_NEW, cur -> {
            if (cur.joining().contains(url)) {
                refuseIfUp(url, "is joining and up: its join ends once its data has arrived");
                return cur.withoutJoining(url);
            }
            if (!cur.members().contains(url)) throw MembershipChangeException.notAMember(url, cur.members());
            refuseIfUp(url, "is up: a live node leaves with bin/dht leave");
            cur.refuseWhileChanging();
            cur.refuseBelowReplicationFactor(url);
            return cur.without(url);
        });
    }

    /**
     * A leaving node dead for good cannot end its leave (only it pushes its data): the next version
     * makes it a plain member again, so that it can be removed as one and the survivors re-create
     * its copies. The copies it pushed already are on the nodes that gain its keys, which its
     * removal makes their owners all the same.
     */
    private void callOffLeave(String url) throws MembershipChangeException {
        change("calling off the leave of " + url, Missing.ONE_NEW, cur -> {
            if (!cur.leaving().contains(url)) return null;
            refuseIfUp(url, "is leaving and up: its leave ends once its data has moved (bin/dht leave again goes on with it)");
            return cur.withoutLeaving(url);
        });
    }

    /** Refuses (409, {@code url} then {@code why}) to drop a node that is this one or up: only a dead one is removed. */
    private void refuseIfUp(String url, String why) throws MembershipChangeException {
        if (url.equals(state.self()) || isUp.test(url)) throw new MembershipChangeException(409, url + " " + why);
    }

    private interface Step {
        /** The next version, or null when the change is already made. */
        Membership next(Membership current) throws MembershipChangeException;
    }

    /** Whether a change may go on without one node that stays. */
    private enum Missing {
        /** Every node that stays prepares. */
        NONE,
        /** A new change (a join, a leave, a removal): one that does not answer may be missed, but not a recorded laggard. */
        ONE_NEW,
        /** The end of the change that recorded the laggards (a join's, a leave's): one may be missed, a recorded laggard included. */
        ONE_CONTINUING
    }

    /**
     * Runs a change: prepares, then commits. With {@code missing} other than NONE, a change may go
     * on without one node that stays (it does not answer: down), when a majority of the current
     * version's members prepared (this node included); the version committed records it as its
     * laggard, and the commits skip it: it pulls the version when it is back.
     *
     * <p>Invariant: every node is at most one change behind the agreed version. A new change
     * (join, leave, remove) over a version that records laggards needs each of them still in the
     * cluster to prepare it, which it can only do once it has that version (prepare checks it);
     * only the end of the change that recorded them ({@link #joined}, {@link #left}) may miss them again. The
     * record is cleared by the next version: it lists only who missed that one. A majority of
     * the members preparing keeps two changes from both being agreed on one version.
     */
    private Membership change(String what, Missing missing, Step step) throws MembershipChangeException {
        synchronized (coordinating) {
            Membership cur = state.current();
            Membership next = step.next(cur);
            if (next == null) return cur;
            String id = state.self() + "/" + changes.incrementAndGet() + "/" + System.nanoTime();
            List<String> participants = new ArrayList<>(cur.all());
            participants.retainAll(next.all());
            List<String> prepared = new ArrayList<>();
            List<String> missed = new ArrayList<>();
            List<String> unanswered = new ArrayList<>();
            try {
                // The coordinator holds the change too when it is a member that does not stay (the
                // end of its own leave): it counts toward the majority as a node that prepared.
                if (!participants.contains(state.self()) && cur.all().contains(state.self())) {
                    prepare(cur.version(), id, next);
                    prepared.add(state.self());
                }
                for (String p : participants) {
                    try {
                        if (p.equals(state.self())) {
                            prepare(cur.version(), id, next);
                        } else {
                            transport.call(p, "prepare", "expect=" + cur.version() + "&id=" + enc(id), next.bytes());
                        }
                        prepared.add(p);
                    } catch (MembershipChangeException refused) {
                        MembershipChangeException e = MembershipChangeException.unansweredIfProofRefused(p, refused);
                        if (e.status() == 503) unanswered.add(p);
                        boolean mayMiss = missing != Missing.NONE && !p.equals(state.self())
                                && (e.status() == 503 || missing == Missing.ONE_CONTINUING && cur.laggards().contains(p));
                        if (!mayMiss) throw e.answered() ? behindIfSo(cur, p, e) : behind(cur, p, e);
                        missed.add(p);
                    }
                }
                refuseMissing(cur, missing, prepared, missed);
            } catch (MembershipChangeException e) {
                for (String p : prepared) abortQuietly(p, id);
                // One that did not answer in time may still take the prepare once it gets to it,
                // and hold it against every other coordinator's change for the lease's length.
                for (String p : unanswered) Thread.ofVirtual().name("membership-abort").start(() -> abortQuietly(p, id));
                log.warn("membership change ({}) refused, nothing changed: {}", what, e.getMessage());
                throw e;
            }
            next = next.withLaggards(missed);
            boolean takenFirst = !participants.contains(state.self()) && cur.all().contains(state.self());
            if (takenFirst) takeFirst(next);
            for (String p : participants) {
                if (missed.contains(p)) continue; // it learns the version from a peer once back
                try {
                    if (p.equals(state.self())) {
                        commit(id, next);
                    } else {
                        transport.call(p, "commit", "id=" + enc(id), next.bytes());
                    }
                    if (takenFirst) keepTaken(next); // a member has it: a restart here may be refused now
                } catch (MembershipChangeException | IOException e) {
                    // prepared, so it holds no other change: it takes this version from a peer soon
                    log.warn("membership version {} not committed on {} ({}); it will learn it from a peer",
                            next.version(), p, e.getMessage());
                }
            }
            if (!participants.contains(state.self())) abort(id);
            if (missed.isEmpty()) {
                log.info("membership change ({}) agreed: version {}", what, next.version());
            } else {
                log.warn("membership change ({}) agreed: version {} without {}, which did not answer: it takes the "
                        + "version when back, and no other change is agreed until it has", what, next.version(), missed);
            }
            return next;
        }
    }

    /**
     * The end of this node's own leave: it takes the version that drops it before any member does.
     * Else, for the moment between the members' commits and its own pull, its reads went by the
     * version before to the old replicas, itself among them, while the members wrote to the new
     * ones only: with one copy it answered from its own store, which no fence checks, an older
     * value than one already acknowledged. Taking it first, its requests go to the new owners at
     * once, and the members' calls placed by the version before are refused here and asked again.
     */
    private void takeFirst(Membership next) {
        try {
            // Used, not kept: kept only once a member has it (keepTaken). Killed before that, this
            // node restarts still leaving, and the leave can be repeated.
            state.applyUnkept(next);
        } catch (IOException e) {
            log.warn("membership version {} not taken here before the members ({}); it will learn it from a peer",
                    next.version(), e.toString());
        }
    }

    private void keepTaken(Membership next) {
        try {
            state.keep();
        } catch (IOException e) {
            log.warn("cannot keep membership version {}: {}", next.version(), e.toString());
        }
    }

    /**
     * {@link #behind} for a refusal {@code node} answered, unless it has the version after all: it
     * refused for another reason (another change's prepare), which {@code e} says as it is.
     */
    private MembershipChangeException behindIfSo(Membership cur, String node, MembershipChangeException e) {
        if (!cur.laggards().contains(node)) return e;
        try {
            if (ask(node).version() >= cur.version()) return e;
        } catch (MembershipChangeException | IllegalArgumentException notKnown) {
            log.debug("version of {}: {}", node, notKnown.getMessage());
        }
        return behind(cur, node, e);
    }

    /** The refusal of a recorded laggard, which says why it matters; else {@code e} as it is. */
    private static MembershipChangeException behind(Membership cur, String node, MembershipChangeException e) {
        if (!cur.laggards().contains(node)) return e;
        return new MembershipChangeException(409, node + " missed membership version " + cur.version()
                + " (it was down) and has not taken it yet (" + e.getMessage() + "); no other change until it has: "
                + "bring it back (it takes the version within " + SYNC_MILLIS / 1000 + " s), or remove it with bin/dht remove");
    }

    private static void refuseMissing(Membership cur, Missing missing, List<String> prepared, List<String> missed)
            throws MembershipChangeException {
        if (missed.isEmpty()) return;
        if (missed.size() > 1) {
            throw new MembershipChangeException(503, missed + " did not answer: a change may go on without one "
                    + "member at most; bring them back, or remove the dead ones with bin/dht remove");
        }
        String m = missed.getFirst();
        if (missing == Missing.ONE_NEW && cur.laggards().contains(m)) {
            throw behind(cur, m, new MembershipChangeException(503, m + " did not answer"));
        }
        long members = prepared.stream().filter(cur.members()::contains).count();
        if (members <= cur.members().size() / 2) {
            throw new MembershipChangeException(503, m + " did not answer, and only " + members + " of the "
                    + cur.members().size() + " members prepared: not a majority");
        }
    }

    private void abortQuietly(String node, String id) {
        if (node.equals(state.self())) {
            abort(id);
            return;
        }
        try {
            transport.call(node, "abort", "id=" + enc(id), new byte[0]);
        } catch (MembershipChangeException e) {
            log.debug("abort on {}: {}", node, e.getMessage());
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ catching up

    /** Asks one peer (each in turn) for its version and takes it if newer: how a missed commit arrives. */
    public void syncOnce() {
        Membership cur = state.current();
        List<String> peers = new ArrayList<>(cur.all());
        peers.remove(state.self());
        if (peers.isEmpty()) return;
        pullFrom(peers.get(Math.floorMod(syncTurn++, peers.size())));
    }

    /**
     * Asks every peer at once for its version and takes the newest of those that answer within
     * {@code waitMillis}; a starting node does this before it serves. Invariant: a node that
     * restarts after missing a commit (it was down between the change's prepare and its commit)
     * does not answer with the version before, as far as a peer that has the commit answers in
     * time: with it, a read would go to the old replicas, and a write acknowledged by the new
     * ones need not be among those it asks. Peers that do not answer in time (starting too) are
     * left to the pull every {@link #SYNC_MILLIS}.
     */
    public void catchUp(long waitMillis) {
        Membership cur = state.current();
        List<String> peers = new ArrayList<>(cur.all());
        peers.remove(state.self());
        List<CompletableFuture<Void>> answers = new ArrayList<>();
        for (String peer : peers) {
            CompletableFuture<Void> answer = new CompletableFuture<>();
            // Each answer is taken as it arrives: a slow peer does not hold up a newer version another gave.
            Thread.ofVirtual().name("membership-catch-up").start(() -> {
                try {
                    takeIfNewer(ask(peer), peer);
                } catch (MembershipChangeException | IOException | RuntimeException e) {
                    log.debug("membership catch-up with {}: {}", peer, e.toString());
                } finally {
                    answer.complete(null);
                }
            });
            answers.add(answer);
        }
        try {
            CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.debug("membership catch-up: not every peer answered within {} ms", waitMillis);
        }
    }

    /**
     * Takes {@code peer}'s version if newer (every peer's within {@link #SYNC_MILLIS}, for null):
     * how {@link MembershipFence} learns a version a replica call showed this node lacks.
     */
    public void pullFrom(String peer) {
        if (peer == null) {
            catchUp(SYNC_MILLIS);
            return;
        }
        try {
            takeIfNewer(ask(peer), peer);
        } catch (MembershipChangeException | IOException | IllegalArgumentException e) {
            log.debug("membership pull from {}: {}", peer, e.getMessage());
        }
    }

    private Membership ask(String peer) throws MembershipChangeException {
        return Membership.decode(new String(transport.call(peer, "get", "", new byte[0]), StandardCharsets.UTF_8));
    }

    private void takeIfNewer(Membership theirs, String peer) throws IOException {
        if (theirs.version() > state.current().version() && state.apply(theirs)) {
            log.info("membership version {} learned from {}", theirs.version(), peer);
        }
    }
}
