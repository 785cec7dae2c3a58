package dht.node.cluster;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps replica calls from mixing membership versions (docs/design.md, "Membership", the fence).
 * A coordinator's replica call carries the membership version it was placed by; a replica on a
 * newer version refuses it and applies nothing ({@link StaleMembershipException}), and the
 * coordinator, told the newer version, pulls it from that replica at once ({@link #reach}) and
 * asks again under it ({@link FencedRetry}). A replica that sees a call on a newer version than
 * its own serves it and pulls too.
 *
 * <p>Why: a node that missed a commit (frozen, or the commit lost) would otherwise place requests
 * by the version before until its next pull, up to {@link MembershipChanges#SYNC_MILLIS} later:
 * its reads would ask the old replicas, which need not hold a write the new ones acknowledged, and
 * its writes would reach a replica that has already cleaned the key up. Fenced, such a request is
 * answered under the newer version when a replica on it refuses before the answer is made; a
 * write refused after that is completed under it.
 *
 * <p>Invariants: versions only grow ({@link MembershipState}). Pulls are kept apart by source:
 * from each named peer (a coordinator refused by that replica), and from every peer (a replica
 * that saw a newer version from a caller it cannot name). Of each at most one runs at a time, and
 * each starts at most every {@link #PULL_SPACING_MILLIS}, so a slow or stalled peer holds up only
 * pulls from itself, and a peer that claims a version it cannot give (a joiner serving on the
 * version it asks for) costs a pull now and then. Requests waiting for a version share one future
 * per version, completed off the thread that applied it.
 */
public final class MembershipFence {
    private static final Logger log = LoggerFactory.getLogger(MembershipFence.class);
    static final long PULL_SPACING_MILLIS = 200;

    /** How this node learns a newer version from a peer (or from every peer, for null). */
    @FunctionalInterface
    public interface Puller {
        void pull(String peerOrNull);
    }

    private volatile MembershipState state;
    private volatile Puller puller;
    /** Pulls from each named peer, and the pull of every peer (null): one of each at a time. */
    private final ConcurrentHashMap<String, Pulls> fromPeer = new ConcurrentHashMap<>();
    private final Pulls fromAll = new Pulls();
    /** One future per version waited for, completed once this node has it. */
    private final ConcurrentSkipListMap<Long, CompletableFuture<Void>> waiting = new ConcurrentSkipListMap<>();
    private final WritesInFlight writes = new WritesInFlight();

    /** Follows {@code state}'s versions; until this is called, calls are not fenced. */
    void follow(MembershipState state) {
        this.state = state;
        state.listen(m -> release(m.version()));
    }

    /**
     * The writes accepted under some version and not yet in this node's store: a member waits them
     * out before it reads its store to move data to a new owner.
     */
    public WritesInFlight writes() {
        return writes;
    }

    /** Where newer versions are pulled from; until set, they come only with the periodic pull. */
    public void pullWith(Puller puller) {
        this.puller = puller;
    }

    /** This node's membership version, which its replica calls carry; 0 before it follows one. */
    public long version() {
        MembershipState s = state;
        return s == null ? 0 : s.current().version();
    }

    /**
     * A peer ({@code peer}; null: not known) is on {@code version}: if that is newer than this
     * node's, a pull from it (from every peer, for null) starts, unless one from it runs or one
     * started within the spacing. Returns whether the pull it asks for was put off for either
     * (one running may bring an older version than asked for).
     */
    public boolean heard(long version, String peer) {
        Puller p = puller;
        if (p == null || version <= version()) return false;
        Pulls kind = peer == null ? fromAll : fromPeer.computeIfAbsent(peer, x -> new Pulls());
        if (!kind.tryStart()) return true;
        Thread.ofVirtual().name("membership-fence-pull").start(() -> {
            try {
                p.pull(peer);
            } catch (RuntimeException e) {
                log.debug("membership pull from {} failed: {}", peer == null ? "every peer" : peer, e.toString());
            } finally {
                kind.running.set(false);
            }
        });
        return false;
    }

    /** One kind of pull: whether one runs, and when the last started. */
    private static final class Pulls {
        final AtomicBoolean running = new AtomicBoolean();
        final AtomicLong lastStartNanos = new AtomicLong(System.nanoTime() - TimeUnit.SECONDS.toNanos(1));

        /** Starts one unless one runs or one started within the spacing; returns whether it did. */
        boolean tryStart() {
            long now = System.nanoTime();
            if (now - lastStartNanos.get() < TimeUnit.MILLISECONDS.toNanos(PULL_SPACING_MILLIS)) return false;
            if (!running.compareAndSet(false, true)) return false;
            lastStartNanos.set(now);
            return true;
        }
    }

    /**
     * Completes with true once this node is on {@code version} or newer (at once if it is), pulling
     * it from {@code peer}; with false if that has not happened within {@code wait}. Completes on a
     * pool thread, not on the thread that applies the version: what waits may send requests.
     */
    public CompletableFuture<Boolean> reach(long version, String peer, Duration wait) {
        if (version() >= version) return CompletableFuture.completedFuture(true);
        CompletableFuture<Void> shared = waiting.computeIfAbsent(version, v -> new CompletableFuture<>());
        if (version() >= version) release(version()); // applied while this was being added
        // A pull put off (one runs, or one started within the spacing) is asked for again once
        // the spacing is over, if this node still lacks the version: once, not repeatedly.
        if (heard(version, peer)) {
            CompletableFuture.delayedExecutor(PULL_SPACING_MILLIS, TimeUnit.MILLISECONDS).execute(() -> heard(version, peer));
        }
        return shared.thenApplyAsync(x -> true).completeOnTimeout(false, wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void release(long now) {
        var ready = waiting.headMap(now, true);
        for (Long v : ready.keySet()) {
            CompletableFuture<Void> f = waiting.remove(v);
            if (f != null) f.complete(null);
        }
    }
}
