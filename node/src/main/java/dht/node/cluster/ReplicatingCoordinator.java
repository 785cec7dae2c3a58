package dht.node.cluster;

import dht.node.text.LineThrottle;
import dht.storage.CorruptionException;
import dht.storage.Entry;
import dht.storage.ReadBudget;
import dht.storage.ReadBudgetExceededException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Coordinates client requests over the key's replicas: the first {@code from} nodes of the key's
 * placement, all asked in parallel (this node through its store, peers through the internal
 * protocol), answered after the first {@code ack} successes or as soon as that is impossible.
 *
 * <p>Invariants: a write is stamped once, here, with this node's hybrid logical clock, and the same
 * entry goes to every replica, so a PUT stores at most {@code from} copies. A read answers the
 * newest version heard by {@link Entry#supersedes} once {@code ack} replicas answered; a tombstone
 * or no version at all is NOT_FOUND. When the replicas heard disagree, the answer waits (up to the
 * replica timeout) until {@code ack} of them hold the newest version, the stale ones repaired
 * ({@link ReadRepair}), so quorum reads are monotonic. No thread waits for a replica: everything
 * is a callback. Writes a peer failed are kept for it until it is back ({@link HintedHandoff}). An
 * operator's {@code repair=all} read goes to {@link FullRepair} instead. A request a replica
 * refused for a newer membership version is asked once more under that version, once this node
 * has it ({@link FencedRetry}); a write asked again keeps its timestamp.
 */
final class ReplicatingCoordinator implements Coordinator {
    private static final Logger log = LoggerFactory.getLogger(ReplicatingCoordinator.class);

    /** The membership version requests are placed by; replaced when the membership changes. */
    private final java.util.function.Supplier<Topology> topology;
    private final Map<String, Replica> replicas;
    private final HybridLogicalClock clock;
    private final ReadRepair readRepair;
    private final FullRepair fullRepair;
    /** Null on a single node. */
    private final HintedHandoff hints;
    /** Null: a fixed membership, nothing to learn. */
    private final FencedRetry fenced;
    /** This node's own writes until they are in its store; null with a fixed membership. */
    private final WritesInFlight inFlight;
    private final FirstClockReading firstReading;

    ReplicatingCoordinator(Placement placement, Map<String, Replica> replicas, HybridLogicalClock clock,
                           ReadRepair readRepair, FullRepair fullRepair, HintedHandoff hints) {
        this(fixed(placement, replicas), Map.copyOf(replicas), clock, readRepair, fullRepair, hints, null, Duration.ZERO,
                FirstClockReading.none());
    }

    /**
     * @param replicas  every node's replica by URL, looked up per request (may gain nodes as they join)
     * @param fenceWait how long a request a replica refused for a newer membership version waits
     *                  for this node to have that version before it is asked again
     * @param firstReading holds client writes until the peers' clocks were asked once
     */
    ReplicatingCoordinator(java.util.function.Supplier<Topology> topology, Map<String, Replica> replicas,
                           HybridLogicalClock clock, ReadRepair readRepair, FullRepair fullRepair, HintedHandoff hints,
                           MembershipFence fence, Duration fenceWait, FirstClockReading firstReading) {
        this.topology = topology;
        this.replicas = replicas;
        this.clock = clock;
        this.readRepair = readRepair;
        this.fullRepair = fullRepair;
        this.hints = hints;
        this.fenced = fence == null ? null : new FencedRetry(fence, fenceWait, topology, replicas, hints);
        this.inFlight = fence == null ? null : fence.writes();
        this.firstReading = firstReading;
    }

    @Override
    public CompletableFuture<Answer> get(byte[] key, Quorum quorum) {
        return get(key, quorum, ReadBudget.UNLIMITED);
    }

    private static java.util.function.Supplier<Topology> fixed(Placement placement, Map<String, Replica> replicas) {
        Topology t = new Topology(Membership.initial(List.copyOf(replicas.keySet()), replicas.size()));
        if (t.size() != placement.size()) throw new IllegalArgumentException("placement and replicas disagree");
        return () -> t;
    }

    @Override
    public CompletableFuture<Answer> get(byte[] key, Quorum quorum, ReadBudget budget) {
        return get(key, quorum, budget, false);
    }

    private CompletableFuture<Answer> get(byte[] key, Quorum quorum, ReadBudget budget, boolean again) {
        Topology t = topology.get();
        List<String> targets = targets(t, key, quorum);
        long placedBy = t.membership().version();
        List<CompletableFuture<Entry>> calls = new ArrayList<>(targets.size());
        for (String url : targets) calls.add(replicas.get(url).read(key, budget, placedBy));
        return readRepair.read(targets, calls, quorum.ack(), placedBy).handle((newest, failure) -> {
            if (failure != null) {
                if (refusedByBudget(calls)) return Answer.OVERLOADED;
                log.debug("GET not enough replicas: {}", failure.getMessage());
                return shortOfReplicas(calls);
            }
            // The newest version decides: an expired one (by this node's clock) is absent, and an
            // older live version behind it never comes back.
            return newest == null || newest.isTombstone() || newest.isExpired(System.currentTimeMillis())
                    ? Answer.NOT_FOUND : Answer.found(newest.value());
        }).thenCompose(answer -> {
            StaleMembershipException stale = again || fenced == null ? null : FencedRetry.newestRefusal(calls);
            return stale == null ? CompletableFuture.completedFuture(answer)
                    : fenced.askAgain(stale, () -> get(key, quorum, budget, true), () -> Answer.NOT_ENOUGH_REPLICAS,
                            () -> Answer.NOT_ENOUGH_REPLICAS);
        });
    }

    /**
     * The quorum failed only because this node's budget could not hold the value: a 503 (retry), not
     * a 504. A replica that failed otherwise makes it a 504, as the contract says for fewer than ack answers.
     */
    private static boolean refusedByBudget(List<CompletableFuture<Entry>> calls) {
        boolean refused = false;
        for (CompletableFuture<Entry> call : calls) {
            if (call.state() != java.util.concurrent.Future.State.FAILED) continue;
            if (!(call.exceptionNow() instanceof ReadBudgetExceededException)) return false;
            refused = true;
        }
        return refused;
    }

    /**
     * Short of ack answers: {@link Answer#REPLICAS_BUSY} when a replica refused for overload (alive,
     * so a retry may succeed), else {@link Answer#STORE_DAMAGED} when this node's store failed the
     * read for a damaged table (its client is told which, rather than of replicas alone), else
     * {@link Answer#NOT_ENOUGH_REPLICAS}. Calls still running when the quorum became impossible (a
     * frozen replica's) count for none of them.
     */
    private static Answer shortOfReplicas(List<? extends CompletableFuture<?>> calls) {
        Answer answer = Answer.NOT_ENOUGH_REPLICAS;
        for (CompletableFuture<?> call : calls) {
            if (call.state() != java.util.concurrent.Future.State.FAILED) continue;
            Throwable failure = call.exceptionNow();
            if (failure instanceof ReplicaBusyException) return Answer.REPLICAS_BUSY;
            // Only the local store's own failure is a CorruptionException: a peer's comes back as a failed call.
            if (failure instanceof CorruptionException damage) answer = Answer.storeDamaged(damage.getMessage());
        }
        return answer;
    }

    // Its own path rather than a flag on get(): an ordinary GET keeps answering after ack replicas,
    // while this one waits for all of them and for its writes.
    @Override
    public CompletableFuture<RepairAnswer> repair(byte[] key, Quorum quorum) {
        return repair(key, quorum, false);
    }

    /**
     * A read refused for a newer membership version has the whole repair made again under it, as a
     * GET is; if it cannot be (the version does not come, or the key no longer fits), the answer
     * is short of replicas, with what the first attempt sent.
     */
    private CompletableFuture<RepairAnswer> repair(byte[] key, Quorum quorum, boolean again) {
        Topology t = topology.get();
        List<String> targets = targets(t, key, quorum);
        long placedBy = t.membership().version();
        List<CompletableFuture<Entry>> calls = new ArrayList<>(targets.size());
        for (String url : targets) calls.add(replicas.get(url).read(key, ReadBudget.UNLIMITED, placedBy));
        return fullRepair.repair(targets, calls, quorum.ack(), placedBy).thenCompose(first -> {
            StaleMembershipException stale = again || fenced == null ? null : FencedRetry.newestRefusal(calls);
            if (stale == null) return CompletableFuture.completedFuture(first);
            RepairAnswer failed = new RepairAnswer(Answer.NOT_ENOUGH_REPLICAS, first.sent(), first.failed(), first.unreachable());
            return fenced.askAgain(stale, () -> repair(key, quorum, true), () -> failed, () -> failed);
        });
    }

    @Override
    public CompletableFuture<Answer> put(byte[] key, byte[] value, Quorum quorum) {
        return put(key, value, quorum, 0);
    }

    /** A PUT whose value expires {@code ttlSeconds} from now by this node's clock (0: never). */
    CompletableFuture<Answer> put(byte[] key, byte[] value, Quorum quorum, long ttlSeconds) {
        if (!firstReading.isOpen()) return firstReading.after(() -> putNow(key, value, quorum, ttlSeconds));
        return putNow(key, value, quorum, ttlSeconds);
    }

    /** Stamps and sends a PUT; the gate is passed (a held write must not ask it again: it stays shut while they run). */
    private CompletableFuture<Answer> putNow(byte[] key, byte[] value, Quorum quorum, long ttlSeconds) {
        return write(Entry.value(key, value, stamp(), expiry(ttlSeconds)), quorum, Answer.STORED, null, false);
    }

    private final LineThrottle clockLine = new LineThrottle(java.time.Duration.ofSeconds(10));

    /**
     * A client write's timestamp, unless this node's clock is off from its peers' ({@link ClockAgreement}):
     * then it throws {@link ClockDisagreementException}, and the write is not made anywhere.
     */
    private long stamp() {
        String off = clock.offReason(topology.get().membership().members());
        if (off != null) {
            long refused = clockLine.occurred();
            if (refused > 0) log.warn("refusing client writes ({} since the last such line): {}", refused, off);
            throw new ClockDisagreementException(off);
        }
        return clock.next();
    }

    /** The absolute expiry, epoch milliseconds, of a value written now to live {@code ttlSeconds} (0: never). */
    private static long expiry(long ttlSeconds) {
        return ttlSeconds == 0 ? 0 : System.currentTimeMillis() + ttlSeconds * 1000;
    }

    @Override
    public CompletableFuture<Answer> put(byte[] key, ByteBuf value, Quorum quorum) {
        return put(key, value, quorum, 0);
    }

    /**
     * A value of {@link BorrowedBody#BORROW_AT} bytes or more goes to this node's store straight from
     * {@code value} (off the heap, as the socket delivered it), held here until the store has
     * written it; only peers and hints get a copy on the heap. A smaller one is copied at once:
     * cheaper than keeping the request's buffer, and no burden to the garbage collector.
     */
    @Override
    public CompletableFuture<Answer> put(byte[] key, ByteBuf value, Quorum quorum, long ttlSeconds) {
        if (!firstReading.isOpen()) { // the request's buffer is not kept while the write is held
            byte[] copy = ByteBufUtil.getBytes(value);
            return firstReading.after(() -> putNow(key, copy, quorum, ttlSeconds));
        }
        if (value.readableBytes() < BorrowedBody.BORROW_AT) return put(key, ByteBufUtil.getBytes(value), quorum, ttlSeconds);
        ByteBuf held = BorrowedBody.contiguous(value);
        Entry entry;
        try {
            entry = Entry.value(key, MemorySegment.ofBuffer(held.nioBuffer()), stamp(), expiry(ttlSeconds));
        } catch (RuntimeException | Error e) {
            held.release();
            throw e;
        }
        return write(entry, quorum, Answer.STORED, held::release, false); // releases it, exactly once, whatever happens
    }

    @Override
    public CompletableFuture<Answer> delete(byte[] key, Quorum quorum) {
        if (!firstReading.isOpen()) return firstReading.after(() -> deleteNow(key, quorum));
        return deleteNow(key, quorum);
    }

    /** Stamps and sends a DELETE; the gate is passed, as for {@link #putNow}. */
    private CompletableFuture<Answer> deleteNow(byte[] key, Quorum quorum) {
        return write(Entry.tombstone(key, stamp()), quorum, Answer.DELETED, null, false);
    }

    /**
     * Sends {@code entry} to every replica of its key. A borrowed entry ({@link Entry#isBorrowed})
     * goes as it is only to this node's store; peers and hints, which keep or send it later, get one
     * copy on the heap between them, made before anything is sent. {@code release} (null for an
     * entry that is not borrowed) runs exactly once, however this ends: when this node's write is
     * over, or before this returns or throws if it never began (this node is not a replica of the
     * key, or something failed first). A write asked {@code again} (after a refusal for a newer
     * membership version) is the heap copy of the first, with its timestamp.
     */
    private CompletableFuture<Answer> write(Entry asked, Quorum quorum, Answer success, Runnable release, boolean again) {
        // The version records the copies its write asked for: read repair may then bring every
        // replica the write targeted up to it, not only those before the last one that holds it.
        Entry entry = asked.withCopies(quorum.from());
        List<CompletableFuture<Void>> calls;
        Entry owned = entry; // the copy on the heap that peers and hints get
        boolean handedToStore = false;
        int ack = quorum.ack();
        // While data moves: which targets are the key's replicas before and after the change.
        boolean[] before = null;
        boolean[] after = null;
        int ackAfter = 0;
        List<String> targets;
        long placedBy;
        // Completed once the quorum's answer is made, with the refusal for a newer membership version
        // seen by then (null: none; FencedRetry): that has the whole write asked again; a refusal
        // after it, only its replica.
        CompletableFuture<StaleMembershipException> decided = new CompletableFuture<>();
        AtomicBoolean newTargetsSent = new AtomicBoolean();
        // Counted from before the version is read until this node's own write is over, so that a
        // member moving data waits it out before it reads its store (WritesInFlight).
        WritesInFlight.Cohort entered = inFlight == null ? null : inFlight.enter();
        boolean leavesWithOwnWrite = false;
        try {
            Topology t = topology.get();
            if (quorum.from() > t.size()) {
                throw new IllegalArgumentException("from " + quorum.from() + " > cluster size " + t.size());
            }
            targets = t.writeTargets(entry.key(), quorum.from());
            placedBy = t.membership().version();
            boolean refused;
            if (!t.membership().changing()) { // then the targets are the key's replicas, no more
                refused = targets.size() - knownDown(targets) < ack;
            } else {
                // Pending replicas (data moving to them): ack of the replicas before the change and
                // ack of those after it must hold the write (MovingWriteQuorum).
                List<String> next = t.finalReplicas(entry.key(), quorum.from());
                before = new boolean[targets.size()];
                after = new boolean[targets.size()];
                int upBefore = 0;
                int upAfter = 0;
                for (int i = 0; i < targets.size(); i++) {
                    before[i] = i < quorum.from();
                    after[i] = next.contains(targets.get(i));
                    boolean up = !replicas.get(targets.get(i)).knownDown();
                    if (up && before[i]) upBefore++;
                    if (up && after[i]) upAfter++;
                }
                ackAfter = Math.min(ack, next.size());
                refused = upBefore < ack || upAfter < ackAfter;
            }
            if (refused) {
                // Refused before anything is written (Cassandra's "unavailable"): a write the client
                // is told failed then leaves no copy behind on this node, or hints of it, for a
                // later read to find on one replica and answer without a quorum holding it.
                log.debug("{} refused: fewer than {} of its replicas are up", entry.isTombstone() ? "DELETE" : "PUT", ack);
                return CompletableFuture.completedFuture(Answer.NOT_ENOUGH_REPLICAS);
            }
            calls = new ArrayList<>(targets.size());
            if (entry.isBorrowed()) {
                for (String url : targets) {
                    if (!(replicas.get(url) instanceof LocalReplica)) {
                        owned = entry.owned();
                        break;
                    }
                }
            }
            for (String url : targets) {
                Replica replica = replicas.get(url);
                if (entry.isBorrowed() && replica instanceof LocalReplica) {
                    CompletableFuture<Void> call = callOf(replica, entry, placedBy);
                    handedToStore = true;
                    call.whenComplete((ok, failure) -> release.run());
                    leavesWithOwnWrite = leaveWhenOver(call, entered);
                    calls.add(call);
                    continue;
                }
                Entry sent = owned;
                CompletableFuture<Void> call = callOf(replica, sent, placedBy);
                if (replica instanceof LocalReplica) leavesWithOwnWrite = leaveWhenOver(call, entered);
                // Hints are kept for peers only: this node's own write needs no callback. A peer that
                // refused the write for a newer membership version is asked again under it: with the
                // whole write if the refusal came before the answer was decided, else on its own.
                if ((hints != null || fenced != null) && !(replica instanceof LocalReplica)) {
                    call.whenComplete((ok, failure) -> {
                        if (failure == null) return;
                        StaleMembershipException stale = StaleMembershipException.of(failure);
                        if (stale == null || fenced == null || again) {
                            if (hints != null) hints.hold(url, sent);
                        } else {
                            decided.thenAccept(atAnswer -> {
                                if (atAnswer == null) fenced.completeLate(url, stale, sent, quorum.from(), targets, newTargetsSent);
                            });
                        }
                    });
                }
                calls.add(call);
            }
        } finally {
            if (!handedToStore && release != null) release.run();
            if (entered != null && !leavesWithOwnWrite) entered.leave();
        }
        // One replica to hear from (a single node, or from=1 without a pending replica): its answer
        // is the quorum's, without a quorum call to gather it.
        CompletableFuture<?> quorumHeard = before != null ? MovingWriteQuorum.collect(calls, before, after, ack, ackAfter)
                : calls.size() == 1 && ack == 1 ? calls.getFirst() : QuorumCall.collect(calls, ack);
        Entry heapCopy = owned;
        return quorumHeard.handle((ok, failure) -> {
            Answer answer = success;
            if (failure != null) {
                log.debug("{} not enough replicas: {}", entry.isTombstone() ? "DELETE" : "PUT", failure.getMessage());
                answer = shortOfReplicas(calls);
            }
            decided.complete(fenced != null && !again && !heapCopy.isBorrowed() ? FencedRetry.newestRefusal(calls) : null);
            return answer;
        }).thenCompose(answer -> {
            StaleMembershipException stale = decided.join(); // completed above
            if (stale == null) return CompletableFuture.completedFuture(answer);
            return fenced.askAgain(stale, () -> write(heapCopy, quorum, success, null, true), () -> Answer.NOT_ENOUGH_REPLICAS, () -> {
                fenced.holdForEachRefusal(targets, calls, heapCopy);
                return Answer.NOT_ENOUGH_REPLICAS;
            });
        });
    }

    /** Has {@code entered} (if any) leave once this node's own write {@code call} is over; true if it will. */
    private static boolean leaveWhenOver(CompletableFuture<Void> call, WritesInFlight.Cohort entered) {
        if (entered == null) return false;
        call.whenComplete((ok, failure) -> entered.leave());
        return true;
    }

    private int knownDown(List<String> targets) {
        int down = 0;
        for (String url : targets) if (replicas.get(url).knownDown()) down++;
        return down;
    }

    /** The replica's write, a failed future if it threw: once this node's store has a borrowed entry, nothing else may throw past its release. */
    private static CompletableFuture<Void> callOf(Replica replica, Entry entry, long placedBy) {
        try {
            return replica.write(entry, placedBy);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static List<String> targets(Topology t, byte[] key, Quorum quorum) {
        if (quorum.from() > t.size()) {
            throw new IllegalArgumentException("from " + quorum.from() + " > cluster size " + t.size());
        }
        return t.readTargets(key, quorum.from());
    }

    @Override
    public void close() {
        if (hints != null) hints.close();
    }
}
