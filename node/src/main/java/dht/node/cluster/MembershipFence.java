package dht.node.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
 * <p>Invariants: versions only grow ({@link MembershipState}). Pulls from a named peer (a
 * coordinator refused by a replica) and pulls from every peer (a replica that saw a newer version
 * from a caller it cannot name) are two kinds: of each at most one runs at a time, and each
 * starts at most every {@link #PULL_SPACING_MILLIS}, so a slow pull of every peer never holds up
 * the coordinator's pull from the replica that has the version, and a peer that claims a version
 * it cannot give (a joiner serving on the version it asks for) costs a pull now and then.
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
    private final Pulls fromOne = new Pulls();
    private final Pulls fromAll = new Pulls();
    /** Those waiting for a version; guarded by itself. */
    private final List<Waiter> waiting = new ArrayList<>();

    private record Waiter(long version, CompletableFuture<Boolean> reached) {
    }

    /** Follows {@code state}'s versions; until this is called, calls are not fenced. */
    void follow(MembershipState state) {
        this.state = state;
        state.listen(m -> release(m.version()));
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
     * node's, a pull starts unless one runs or one started within the spacing.
     */
    public void heard(long version, String peer) {
        Puller p = puller;
        if (p == null || version <= version()) return;
        Pulls kind = peer == null ? fromAll : fromOne;
        if (!kind.tryStart()) return;
        Thread.ofVirtual().name("membership-fence-pull").start(() -> {
            try {
                p.pull(peer);
            } catch (RuntimeException e) {
                log.debug("membership pull from {} failed: {}", peer == null ? "every peer" : peer, e.toString());
            } finally {
                kind.running.set(false);
            }
        });
    }

    /** One kind of pull: whether one runs, and when the last started. */
    private static final class Pulls {
        final AtomicBoolean running = new AtomicBoolean();
        final AtomicLong lastStartNanos = new AtomicLong(System.nanoTime() - TimeUnit.SECONDS.toNanos(1));

        /** Starts one unless one runs or one started within the spacing. */
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
     * it from {@code peer}; with false if that has not happened within {@code wait}.
     */
    public CompletableFuture<Boolean> reach(long version, String peer, Duration wait) {
        if (version() >= version) return CompletableFuture.completedFuture(true);
        CompletableFuture<Boolean> reached = new CompletableFuture<>();
        synchronized (waiting) {
            waiting.removeIf(w -> w.reached.isDone()); // those that timed out
            waiting.add(new Waiter(version, reached));
        }
        if (version() >= version) release(version()); // applied while this was being added
        // The pull spacing may skip this pull; the next refusal, or the periodic pull, starts one.
        heard(version, peer);
        return reached.completeOnTimeout(false, wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void release(long now) {
        List<Waiter> ready = new ArrayList<>();
        synchronized (waiting) {
            waiting.removeIf(w -> {
                boolean done = w.version <= now || w.reached.isDone();
                if (w.version <= now) ready.add(w);
                return done;
            });
        }
        for (Waiter w : ready) w.reached.complete(true);
    }
}
