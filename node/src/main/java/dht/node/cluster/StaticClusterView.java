package dht.node.cluster;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** The static topology plus the peer client's current belief about each peer. */
final class StaticClusterView implements ClusterView {
    private final String self;
    private final List<String> nodes;
    private final Predicate<String> isUp;
    private final Supplier<Map<String, Long>> repair;
    private final Supplier<Map<String, Long>> clock;
    private final Supplier<Map<String, Map<String, Long>>> hints;
    private final Supplier<Map<String, Map<String, Long>>> antiEntropy;
    private final int replicationFactor;

    StaticClusterView(String self, List<String> nodes, Predicate<String> isUp, Supplier<Map<String, Long>> repair,
                      Supplier<Map<String, Long>> clock, Supplier<Map<String, Map<String, Long>>> hints,
                      Supplier<Map<String, Map<String, Long>>> antiEntropy, int replicationFactor) {
        this.replicationFactor = replicationFactor;
        this.hints = hints;
        this.antiEntropy = antiEntropy;
        this.self = self;
        this.nodes = List.copyOf(nodes);
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
    public Map<String, Long> repair() {
        return repair.get();
    }

    @Override
    public String self() {
        return self;
    }

    @Override
    public List<String> nodes() {
        return nodes;
    }

    @Override
    public Map<String, Boolean> peersUp() {
        Map<String, Boolean> up = new LinkedHashMap<>();
        for (String n : nodes) {
            if (!n.equals(self)) up.put(n, isUp.test(n));
        }
        return up;
    }

    @Override
    public int replicationFactor() {
        return replicationFactor;
    }
}
