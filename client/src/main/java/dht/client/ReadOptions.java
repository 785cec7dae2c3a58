package dht.client;

import java.util.OptionalInt;

/**
 * How a GET is answered: {@code ack}, the replicas whose answers it waits for (the newest version
 * among them wins), among {@code from}, the replicas asked. Unset values are left to the node and
 * not sent. Immutable: each method returns a new instance.
 */
public final class ReadOptions {
    private static final ReadOptions DEFAULTS = new ReadOptions(0, 0);

    private final int ack;
    private final int from;

    private ReadOptions(int ack, int from) {
        this.ack = ack;
        this.from = from;
    }

    /** Every setting left to the node. */
    public static ReadOptions defaults() {
        return DEFAULTS;
    }

    public ReadOptions ack(int ack) {
        return new ReadOptions(Checks.positive("ack", ack), from);
    }

    public ReadOptions from(int from) {
        return new ReadOptions(ack, Checks.positive("from", from));
    }

    public OptionalInt ack() {
        return ack == 0 ? OptionalInt.empty() : OptionalInt.of(ack);
    }

    public OptionalInt from() {
        return from == 0 ? OptionalInt.empty() : OptionalInt.of(from);
    }

    void appendTo(Query q) {
        q.positive("ack", ack).positive("from", from);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ReadOptions o && o.ack == ack && o.from == from;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(ack, from);
    }

    @Override
    public String toString() {
        return "ReadOptions[ack=" + (ack == 0 ? "default" : ack) + ", from=" + (from == 0 ? "default" : from) + "]";
    }
}
