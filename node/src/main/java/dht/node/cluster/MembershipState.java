package dht.node.cluster;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's current membership version and the {@link Topology} built from it. A newer version
 * is kept in the data directory before anything uses it, then replaces the topology at once; an
 * older or equal version is ignored, so versions only grow and applying one twice is harmless.
 * Listeners (rebalancing, cleanup) hear applied versions after the swap, in order: one that
 * arrives after a newer one was heard is skipped.
 */
public final class MembershipState {
    private static final Logger log = LoggerFactory.getLogger(MembershipState.class);

    private final String self;
    /** Null: not kept (a cluster started by tests with a static list). */
    private final MembershipFile file;
    /** Told each URL that gets traffic, before a topology naming it is used (it makes the peer's replica). */
    private final Consumer<String> reach;
    private final List<Consumer<Membership>> listeners = new CopyOnWriteArrayList<>();
    private final List<BiConsumer<Membership, Membership>> beforeKeeping = new CopyOnWriteArrayList<>();
    private volatile Topology topology;
    /** Whether the current version was applied without being kept on disk; guarded by this. */
    private boolean unkept;
    private final Object notifying = new Object();
    /** The newest version listeners have heard; guarded by {@link #notifying}. */
    private long notified;

    MembershipState(String self, Membership initial, MembershipFile file, Consumer<String> reach) {
        this.self = self;
        this.file = file;
        this.reach = reach;
        for (String n : initial.all()) reach.accept(n);
        this.topology = new Topology(initial);
    }

    public String self() {
        return self;
    }

    public Membership current() {
        return topology.membership();
    }

    public Topology topology() {
        return topology;
    }

    /** Adds a listener of every version applied from now on. */
    public void listen(Consumer<Membership> listener) {
        listeners.add(listener);
    }

    /**
     * Adds a hook told (version before, version next) before each newer version is kept on disk,
     * under the lock that applies it: for what a crash right after keeping it must not lose (a
     * cleanup owed once a join ends). It must be quick; what it throws is logged.
     */
    public void beforeKeeping(BiConsumer<Membership, Membership> hook) {
        beforeKeeping.add(hook);
    }

    /**
     * Makes {@code next} current if it is newer: kept on disk first, then used. Returns whether it
     * was applied.
     *
     * @throws IOException when it could not be kept (nothing changed)
     */
    public boolean apply(Membership next) throws IOException {
        return apply(next, true);
    }

    /**
     * As {@link #apply}, but {@code next} is used without being kept on disk until {@link #keep}
     * (or an {@link #apply} of it or a newer one): for a version this node must use at once but
     * must not start on again after a crash unless another node has kept it too (the end of its
     * own leave, which drops it: kept here alone, a restart would be refused while the members
     * still list it as leaving, and no one could end that leave).
     */
    public boolean applyUnkept(Membership next) throws IOException {
        return apply(next, false);
    }

    /**
     * Takes {@code agreed}, the current version with the laggards its agreement recorded, in place
     * of the current one: a joiner serves on the version its join agrees on before it is agreed, and
     * ends that join, which may miss those laggards again. Placement does not depend on the record.
     * A newer version taken meanwhile stays.
     */
    public synchronized void recordLaggards(Membership agreed) {
        if (current().version() > agreed.version()) return;
        if (!agreed.equals(current().withLaggards(agreed.laggards()))) {
            throw new IllegalArgumentException("version " + agreed.version() + " is not the current one with laggards");
        }
        topology = new Topology(agreed);
    }

    /** Keeps the current version on disk if it was applied unkept; else nothing. */
    public synchronized void keep() throws IOException {
        if (unkept && file != null) file.write(current());
        unkept = false;
    }

    /**
     * Installs {@code next} if it is newer. Its monitor is held while the peers of {@code next} are
     * reached and its topology set, so a listener that undoes what a reach did (retiring a peer)
     * takes the same monitor and checks {@link #current} first.
     */
    private boolean apply(Membership next, boolean keep) throws IOException {
        Membership before;
        synchronized (this) {
            before = current();
            if (next.version() <= before.version()) {
                if (keep && unkept && next.version() == before.version()) keep();
                return false;
            }
            for (BiConsumer<Membership, Membership> hook : beforeKeeping) {
                try {
                    hook.accept(before, next);
                } catch (RuntimeException e) {
                    log.error("a hook before keeping membership version {} failed: {}", next.version(), e.toString());
                }
            }
            if (keep && file != null) file.write(next);
            unkept = !keep;
            for (String n : next.all()) reach.accept(n);
            topology = new Topology(next);
        }
        log.info("membership version {} -> {}: members {}{}{}, replication factor {}", before.version(), next.version(),
                next.members(), next.joining().isEmpty() ? "" : ", joining " + next.joining(),
                next.leaving().isEmpty() ? "" : ", leaving " + next.leaving(), next.replicationFactor());
        if (before.all().contains(self) && !before.leaving().contains(self) && !next.all().contains(self)) {
            log.warn("this node ({}) is not in the cluster any more as of membership version {}: it was {} while the "
                    + "others could not reach it; it holds no replica and its data here is not read; stop it (to join "
                    + "again, start it with an empty --data)", self, next.version(),
                    before.joining().contains(self) ? "joining, and its join was called off" : "removed");
        }
        // Listeners hear versions in order, each at most once: two versions applied at once on two
        // threads (a commit and a pull) must not reach them newest first.
        synchronized (notifying) {
            if (next.version() <= notified) return true;
            notified = next.version();
            for (Consumer<Membership> l : listeners) {
                try {
                    l.accept(next);
                } catch (RuntimeException e) {
                    log.error("a listener of membership version {} failed: {}", next.version(), e.toString());
                }
            }
        }
        return true;
    }
}
