package dht.client;

import java.util.OptionalInt;

/**
 * How a range scan is answered. By default the scope is the node's to choose: a node in a cluster
 * scans the whole cluster, merging each key's newest version from at least {@code ack} of its
 * replicas, and a node alone reads its own store. {@link #local()} asks for the answering node's
 * own data only ({@code scope=local}), {@link #cluster()} for the merged scan even on a node alone
 * ({@code scope=cluster}). {@link #limit(int)} asks the node for at most that many entries, the
 * first of the range in key order ({@code limit=N}): the node stops there, and in a cluster asks
 * its peers for no more than it needs, where a stream closed early would have made them send on.
 * Unset values are left to the node and not sent. Immutable: each method returns a new instance.
 */
public final class ScanOptions {
    /** The {@code scope} sent: none (the node's default), local or cluster. */
    private enum Scope { DEFAULT, LOCAL, CLUSTER }

    private static final ScanOptions DEFAULTS = new ScanOptions(Scope.DEFAULT, 0, 0);

    private final Scope scope;
    private final int ack;
    private final int limit;

    private ScanOptions(Scope scope, int ack, int limit) {
        this.scope = scope;
        this.ack = ack;
        this.limit = limit;
    }

    /** The node's default scope (a cluster node: the whole cluster), with the node's default {@code ack}. */
    public static ScanOptions defaults() {
        return DEFAULTS;
    }

    /** Only the answering node's own data ({@code scope=local}). */
    public ScanOptions local() {
        return new ScanOptions(Scope.LOCAL, ack, limit);
    }

    /** The whole cluster's data, merged, said explicitly ({@code scope=cluster}). */
    public ScanOptions cluster() {
        return new ScanOptions(Scope.CLUSTER, ack, limit);
    }

    /** Replicas of each key whose versions a cluster scan merges; positive. */
    public ScanOptions ack(int ack) {
        return new ScanOptions(scope, Checks.positive("ack", ack), limit);
    }

    /**
     * At most {@code limit} entries: the first of the range in key order (deleted and expired keys
     * are not counted); positive. A range with fewer entries is returned whole.
     */
    public ScanOptions limit(int limit) {
        return new ScanOptions(scope, ack, Checks.positive("limit", limit));
    }

    public boolean isLocal() {
        return scope == Scope.LOCAL;
    }

    /** True when {@code scope=cluster} is sent ({@link #cluster()}). */
    public boolean isCluster() {
        return scope == Scope.CLUSTER;
    }

    public OptionalInt ack() {
        return ack == 0 ? OptionalInt.empty() : OptionalInt.of(ack);
    }

    public OptionalInt limit() {
        return limit == 0 ? OptionalInt.empty() : OptionalInt.of(limit);
    }

    void appendTo(Query q) {
        if (scope == Scope.LOCAL) q.text("scope", "local");
        if (scope == Scope.CLUSTER) q.text("scope", "cluster");
        q.positive("ack", ack).positive("limit", limit);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ScanOptions o && o.scope == scope && o.ack == ack && o.limit == limit;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(scope, ack, limit);
    }

    @Override
    public String toString() {
        return "ScanOptions[" + scope.name().toLowerCase(java.util.Locale.ROOT) + ", ack=" + (ack == 0 ? "default" : ack)
                + ", limit=" + (limit == 0 ? "none" : limit) + "]";
    }
}
