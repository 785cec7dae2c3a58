package dht.node.cluster;

import dht.storage.Entry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a coordinator does with replica calls refused for a newer membership version
 * ({@link MembershipFence}): the refusal proves this node placed the request by a version it
 * should no longer use, so the request is made again under the newer one, whether or not it
 * reached {@code ack} without the refusing replica (that replica is usually still one of the
 * key's, and a read answered without it may be answered by replicas that missed the commit too).
 *
 * <p>Invariants: a request is asked again at most once, and only once this node has the newer
 * version; if it does not get it within the wait, the request fails (a write: short of replicas,
 * with a hint kept for each replica that refused it, as for any failed replica). A write refused
 * only after its answer was decided (a late refusal) is completed under the newer version
 * instead: sent, with its timestamp, to the refusing replica if it is still one of the key's
 * targets and to the targets the first placement did not have, each failure held as a hint.
 */
final class FencedRetry {
    private static final Logger log = LoggerFactory.getLogger(FencedRetry.class);

    private final MembershipFence fence;
    private final Duration wait;
    private final Supplier<Topology> topology;
    private final Map<String, Replica> replicas;
    /** Null: hints are off. */
    private final HintedHandoff hints;

    FencedRetry(MembershipFence fence, Duration wait, Supplier<Topology> topology, Map<String, Replica> replicas,
                HintedHandoff hints) {
        this.fence = fence;
        this.wait = wait;
        this.topology = topology;
        this.replicas = replicas;
        this.hints = hints;
    }

    /** Of the calls that failed so far, the refusal for the newest membership version, or null if none was refused. */
    static StaleMembershipException newestRefusal(List<? extends CompletableFuture<?>> calls) {
        StaleMembershipException stale = null;
        for (CompletableFuture<?> call : calls) {
            StaleMembershipException s = refusal(call);
            if (s != null && (stale == null || s.version() > stale.version())) stale = s;
        }
        return stale;
    }

    /** The call's refusal for a newer membership version, or null if it did not fail so (yet). */
    private static StaleMembershipException refusal(CompletableFuture<?> call) {
        return call.state() == Future.State.FAILED ? StaleMembershipException.of(call.exceptionNow()) : null;
    }

    /** Keeps {@code entry} as a hint for each target (same order as {@code calls}) whose call was refused so. */
    void holdForEachRefusal(List<String> targets, List<? extends CompletableFuture<?>> calls, Entry entry) {
        for (int i = 0; i < calls.size(); i++) {
            if (refusal(calls.get(i)) != null) hold(targets.get(i), entry);
        }
    }

    /**
     * Once this node has the refusal's version, {@code again}'s answer ({@code unplaceable}'s if the
     * request no longer fits the cluster, e.g. a {@code from} above its size); else
     * {@code otherwise}'s, made when the wait ends.
     */
    <T> CompletableFuture<T> askAgain(StaleMembershipException stale, Supplier<CompletableFuture<T>> again,
                                      Supplier<T> unplaceable, Supplier<T> otherwise) {
        log.debug("asking again on membership version {}: {}", stale.version(), stale.getMessage());
        return fence.reach(stale.version(), stale.peer(), wait).thenCompose(reached -> {
            if (!reached) return CompletableFuture.completedFuture(otherwise.get());
            try {
                return again.get();
            } catch (IllegalArgumentException e) {
                log.debug("not asked again on membership version {}: {}", stale.version(), e.getMessage());
                return CompletableFuture.completedFuture(unplaceable.get());
            }
        });
    }

    /** Keeps {@code entry} for {@code url} until it is back, if hints are on and {@code url} is a peer. */
    private void hold(String url, Entry entry) {
        if (hints != null && !(replicas.get(url) instanceof LocalReplica)) hints.hold(url, entry);
    }

    /**
     * A write {@code refusedBy} refused after its answer was decided: once this node has the
     * refusal's version, sends it to that replica if it is still a target of the key, and (once
     * per write: {@code newTargetsSent}) to the targets not among {@code firstTargets}.
     */
    void completeLate(String refusedBy, StaleMembershipException stale, Entry sent, int from, List<String> firstTargets,
                      AtomicBoolean newTargetsSent) {
        fence.reach(stale.version(), stale.peer(), wait).thenAccept(reached -> {
            if (!reached) {
                hold(refusedBy, sent);
                return;
            }
            Topology t = topology.get();
            if (from > t.size()) return; // the cluster shrank below the write's copies: nothing to place
            boolean sendNew = newTargetsSent.compareAndSet(false, true);
            for (String target : t.writeTargets(sent.key(), from)) {
                if (!target.equals(refusedBy) && !(sendNew && !firstTargets.contains(target))) continue;
                Replica r = replicas.get(target);
                CompletableFuture<Void> call;
                try {
                    call = r.write(sent, t.membership().version());
                } catch (RuntimeException e) {
                    call = CompletableFuture.failedFuture(e);
                }
                call.whenComplete((ok, failure) -> {
                    if (failure != null) hold(target, sent);
                });
            }
        });
    }
}
