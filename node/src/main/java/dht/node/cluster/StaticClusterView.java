package dht.node.cluster;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** The static topology plus the peer client's current belief about each peer. */
final class StaticClusterView implements ClusterView {
    private final String self;
    private final Supplier<List<String>> nodes;
    private final Predicate<String> isUp;
    private final Supplier<Map<String, Long>> repair;
    private final Supplier<Map<String, Long>> clock;
    private final Supplier<Map<String, Map<String, Long>>> hints;
    private final Supplier<Map<String, Map<String, Long>>> antiEntropy;
    private final java.util.function.IntSupplier replicationFactor;
    private final Supplier<Membership> membership;
    private final Supplier<Map<String, Long>> rebalancing;
    private final LongSupplier purgeHorizon;

    StaticClusterView(String self, List<String> nodes, Predicate<String> isUp, Supplier<Map<String, Long>> repair,
                      Supplier<Map<String, Long>> clock, Supplier<Map<String, Map<String, Long>>> hints,
                      Supplier<Map<String, Map<String, Long>>> antiEntropy, int replicationFactor) {
        this(self, () -> nodes, isUp, repair, clock, hints, antiEntropy, () -> replicationFactor,
                () -> Membership.initial(nodes, replicationFactor), Map::of, () -> Long.MAX_VALUE);
    }

    /**
     * With the nodes, replication factor and membership read when asked (the membership may
     * change), and the tombstone purge horizon.
     */
    StaticClusterView(String self, Supplier<List<String>> nodes, Predicate<String> isUp, Supplier<Map<String, Long>> repair,
                      Supplier<Map<String, Long>> clock, Supplier<Map<String, Map<String, Long>>> hints,
                      Supplier<Map<String, Map<String, Long>>> antiEntropy, java.util.function.IntSupplier replicationFactor,
                      Supplier<Membership> membership, Supplier<Map<String, Long>> rebalancing, LongSupplier purgeHorizon) {
        this.rebalancing = rebalancing;
        this.membership = membership;
        this.replicationFactor = replicationFactor;
        this.purgeHorizon = purgeHorizon;
        this.hints = hints;
        this.antiEntropy = antiEntropy;
        this.self = self;
        this.nodes = nodes;
        this.isUp = isUp;
        this.repair = repair;
        this.clock = clock;
    }

    @Override
    public Map<String, Long> clock() {
        return clock.get();
    }

    @Override
    public Map<String, Map<String, Long>> hints() {
        return hints.get();
    }

    @Override
    public Map<String, Map<String, Long>> antiEntropy() {
        return antiEntropy.get();
    }

    @Override
    public long purgeHorizonMillis() {
        return purgeHorizon.getAsLong();
    }

    @Override
    public Map<String, Long> repair() {
        return repair.get();
    }

    @Override
    public String self() {
        return self;
    }

    @Override
    public List<String> nodes() {
        return nodes.get();
    }

    @Override
    public Map<String, Boolean> peersUp() {
        Map<String, Boolean> up = new LinkedHashMap<>();
        for (String n : membership.get().all()) {
            if (!n.equals(self)) up.put(n, isUp.test(n));
        }
        return up;
    }

    @Override
    public int replicationFactor() {
        return replicationFactor.getAsInt();
    }

    @Override
    public Map<String, Long> rebalancing() {
        return rebalancing.get();
    }

    @Override
    public Membership membership() {
        return membership.get();
    }
}
