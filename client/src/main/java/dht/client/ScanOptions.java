package dht.client;

import java.util.OptionalInt;

/**
 * How a range scan is answered. By default a node in a cluster scans the whole cluster, merging
 * each key's newest version from at least {@code ack} of its replicas ({@code scope=cluster});
 * {@link #local()} asks for the answering node's own data only. Unset values are left to the node
 * and not sent. Immutable: each method returns a new instance.
 */
public final class ScanOptions {
    private static final ScanOptions DEFAULTS = new ScanOptions(false, 0);

    private final boolean local;
    private final int ack;

    private ScanOptions(boolean local, int ack) {
        this.local = local;
        this.ack = ack;
    }

    /** The whole cluster's data, with the node's default {@code ack}. */
    public static ScanOptions defaults() {
        return DEFAULTS;
    }

    /** Only the answering node's own data ({@code scope=local}). */
    public ScanOptions local() {
        return new ScanOptions(true, ack);
    }

    /** Replicas of each key whose versions a cluster scan merges; positive. */
    public ScanOptions ack(int ack) {
        return new ScanOptions(local, Checks.positive("ack", ack));
    }

    public boolean isLocal() {
        return local;
    }

    public OptionalInt ack() {
        return ack == 0 ? OptionalInt.empty() : OptionalInt.of(ack);
    }

    void appendTo(Query q) {
        if (local) q.text("scope", "local");
        q.positive("ack", ack);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ScanOptions o && o.local == local && o.ack == ack;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(local, ack);
    }

    @Override
    public String toString() {
        return "ScanOptions[" + (local ? "local" : "cluster") + ", ack=" + (ack == 0 ? "default" : ack) + "]";
    }
}
