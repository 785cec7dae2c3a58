package dht.node.cluster;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Up to when every peer is known to hold what this node holds: the storage engine's purge horizon
 * (epoch milliseconds; a tombstone whose timestamp is before it may be forgotten once past its
 * grace). See docs/design.md, "Forgetting tombstones safely".
 *
 * <p>Per peer it keeps the instant of the snapshot of this node's tree compared in the last
 * anti-entropy exchange with it that completed in full: every entry this node held then is on that
 * peer now, or something newer. Why: the trees are kept on write ({@link HashTrees}) and a snapshot
 * is copied while no write is half done, so it is exactly the store's versions at that instant; the
 * peer's tree is likewise its store at about that instant, and a store only moves to newer
 * versions. (One exception, harmless here: a tombstone the engine forgot keeps its hash until the
 * trees are built again. A peer's leaf that still counts it claims a delete the peer no longer
 * holds, but the peer forgot it only past its own horizon, so no older version of the key is left
 * anywhere to come back, and the key reads as deleted there either way.) A leaf equal on both sides
 * (in any of the exchange's comparisons, three to six, each later than the first) means the peer held this
 * node's versions of those keys, or newer ones; a leaf that differs in all was paged through and
 * each key moved both ways, newest winning (an exchange that skipped a leaf paged before, {@link
 * QuietLeaves}, claims nothing). The horizon is the least of these instants, less
 * {@code slack}, so that a write that reaches this node up to {@code slack} after its timestamp is
 * covered by an exchange whose snapshot was taken after its timestamp plus {@code slack}. A write
 * that arrives later than that (a hint, read repair, another peer's anti-entropy, a delayed replica
 * write) is told here ({@link #lateWriteStarting}, {@link #lateWriteEnded}) and holds the horizon
 * at or below its timestamp until every peer's exchange snapshot was taken after it arrived. A peer
 * never exchanged with since this node started holds the horizon at the start of time: nothing is
 * kept on disk, so a restart forgets nothing that matters, it only delays purging by one round.
 * With no peers there is no limit.
 *
 * <p>A snapshot's claim holds only for the membership view ({@link ExchangePeers}) its trees were
 * built for: "every entry" means every key that view's replica sets give both nodes. So an
 * exchange compares only a snapshot of its own version's trees, with a peer on that version, and
 * one that the version changed under stops without a claim; on a new version the trees are
 * retargeted and built again before any snapshot is taken ({@link HashTrees#retarget}).
 *
 * <p>Thread-safe; every method is short and synchronized (late writes are rare).
 */
public final class PurgeHorizon implements LongSupplier {
    /** The default {@code slack}: a replica write normally reaches its store well within it. */
    public static final Duration DEFAULT_SLACK = Duration.ofSeconds(5);

    private final String self;
    /** Every node of the cluster, read each time: the membership may change. */
    private Supplier<List<String>> nodes;
    private final long slackMillis;
    private final LongSupplier clockMillis;
    /** Peer to the snapshot instant of its last full exchange, in epoch ms; absent: none since start. */
    private final Map<String, Long> coveredFrom = new LinkedHashMap<>();
    /** Late writes that ended, by the second they ended in: the least timestamp (ms) among them. */
    private final TreeMap<Long, Long> lateBySecond = new TreeMap<>();
    /** Late writes under way: timestamp (ms) to how many. */
    private final TreeMap<Long, Integer> lateUnderWay = new TreeMap<>();

    /**
     * @param self        this node, not a peer of itself
     * @param nodes       every node of the cluster; each other one must be covered
     * @param slack       how long after its timestamp a write may reach this node and still count
     *                    as on time
     * @param clockMillis this node's clock, the one anti-entropy's snapshot instants are read from
     */
    public PurgeHorizon(String self, List<String> nodes, Duration slack, LongSupplier clockMillis) {
        this.self = self;
        List<String> fixed = List.copyOf(nodes);
        this.nodes = () -> fixed;
        this.slackMillis = slack.toMillis();
        this.clockMillis = clockMillis;
    }

    public PurgeHorizon(String self, List<String> nodes) {
        this(self, nodes, DEFAULT_SLACK, System::currentTimeMillis);
    }

    /**
     * From now on the nodes are what {@code members} gives each time (every member, joining and
     * leaving ones included): a new member holds the horizon until an exchange with it completes.
     */
    public synchronized void follow(Supplier<List<String>> members) {
        this.nodes = members;
    }

    private synchronized List<String> peers() {
        return nodes.get().stream().filter(n -> !n.equals(self)).toList();
    }

    /** Whether a write of an entry stamped {@code timestampMillis} reaching this node now is late. */
    public boolean isLate(long timestampMillis, long nowMillis) {
        // the cheap test first: nearly every write is on time
        return timestampMillis < nowMillis - slackMillis && !peers().isEmpty();
    }

    /** The current time of the clock snapshot instants and arrivals are read from. */
    public long nowMillis() {
        return clockMillis.getAsLong();
    }

    /** A late write whose oldest entry is stamped {@code timestampMillis} is about to reach the store. */
    public synchronized void lateWriteStarting(long timestampMillis) {
        lateUnderWay.merge(timestampMillis, 1, Integer::sum);
    }

    /** The late write announced by {@link #lateWriteStarting} with this timestamp is done (or failed). */
    public synchronized void lateWriteEnded(long timestampMillis) {
        lateUnderWay.computeIfPresent(timestampMillis, (k, n) -> n == 1 ? null : n - 1);
        lateBySecond.merge(Math.floorDiv(clockMillis.getAsLong(), 1000), timestampMillis, Math::min);
    }

    /**
     * An exchange with {@code peer} completed in full; this node's side of it was a snapshot of its
     * tree taken at {@code snapshotMillis}.
     */
    synchronized void exchangeCompleted(String peer, long snapshotMillis) {
        if (!peers().contains(peer)) throw new IllegalArgumentException("not a peer: " + peer);
        coveredFrom.merge(peer, snapshotMillis, Math::max);
    }

    /** The horizon in epoch ms: {@code Long.MAX_VALUE} with no peers, {@code Long.MIN_VALUE} while a peer is not covered. */
    @Override
    public synchronized long getAsLong() {
        List<String> peers = peers();
        if (peers.isEmpty()) return Long.MAX_VALUE;
        long covered = Long.MAX_VALUE;
        for (String p : peers) {
            Long from = coveredFrom.get(p);
            if (from == null) return Long.MIN_VALUE;
            covered = Math.min(covered, from);
        }
        // Late writes that ended in a second wholly before `covered` are in every peer's exchange.
        lateBySecond.headMap(Math.floorDiv(covered, 1000)).clear();
        long h = covered - slackMillis;
        for (long ts : lateBySecond.values()) h = Math.min(h, ts);
        if (!lateUnderWay.isEmpty()) h = Math.min(h, lateUnderWay.firstKey());
        return h;
    }

    /** Per peer, the snapshot instant of its last full exchange since start (epoch ms); 0 for none. */
    public synchronized Map<String, Long> coveredFrom() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String p : peers()) m.put(p, coveredFrom.getOrDefault(p, 0L));
        return m;
    }
}
