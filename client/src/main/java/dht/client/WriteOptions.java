package dht.client;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * How a PUT or DELETE is replicated: {@code ack}, the replicas that must acknowledge it, among
 * {@code from}, the replicas it goes to, and for a PUT an optional time to live. Unset values are
 * left to the node (its defaults: {@code from} = the replication factor, {@code ack} = a quorum of
 * it) and are not sent. Immutable: each method returns a new instance.
 *
 * <pre>{@code
 * client.put("k", "v", WriteOptions.defaults().ack(2).from(3).ttl(Duration.ofHours(1)));
 * }</pre>
 */
public final class WriteOptions {
    private static final WriteOptions DEFAULTS = new WriteOptions(0, 0, 0);

    private final int ack;
    private final int from;
    private final long ttlSeconds;

    private WriteOptions(int ack, int from, long ttlSeconds) {
        this.ack = ack;
        this.from = from;
        this.ttlSeconds = ttlSeconds;
    }

    /** Every setting left to the node. */
    public static WriteOptions defaults() {
        return DEFAULTS;
    }

    /** Replicas that must acknowledge the write; positive (the node checks it against {@code from}). */
    public WriteOptions ack(int ack) {
        return new WriteOptions(Checks.positive("ack", ack), from, ttlSeconds);
    }

    /** Replicas the write goes to; positive (the node checks it against the cluster's size). */
    public WriteOptions from(int from) {
        return new WriteOptions(ack, Checks.positive("from", from), ttlSeconds);
    }

    /** The longest time to live a node takes: 20 years of 365 days. */
    public static final long MAX_TTL_SECONDS = 630_720_000L;

    /**
     * A PUT's time to live, in whole seconds, from 1 to {@link #MAX_TTL_SECONDS} (sent as
     * {@code ttl=SECONDS}). Meaningless for a DELETE, which does not send it.
     */
    public WriteOptions ttlSeconds(long seconds) {
        if (seconds < 1 || seconds > MAX_TTL_SECONDS) {
            throw new IllegalArgumentException("ttl must be from 1 to " + MAX_TTL_SECONDS + " seconds, got " + seconds);
        }
        return new WriteOptions(ack, from, seconds);
    }

    /** {@link #ttlSeconds(long)} of a duration, which must be a whole number of seconds. */
    public WriteOptions ttl(Duration ttl) {
        if (ttl.toNanosPart() != 0) throw new IllegalArgumentException("ttl must be whole seconds, got " + ttl);
        return ttlSeconds(ttl.toSeconds());
    }

    public OptionalInt ack() {
        return ack == 0 ? OptionalInt.empty() : OptionalInt.of(ack);
    }

    public OptionalInt from() {
        return from == 0 ? OptionalInt.empty() : OptionalInt.of(from);
    }

    public OptionalLong ttlSeconds() {
        return ttlSeconds == 0 ? OptionalLong.empty() : OptionalLong.of(ttlSeconds);
    }

    void appendTo(Query q, boolean withTtl) {
        q.positive("ack", ack).positive("from", from);
        if (withTtl && ttlSeconds > 0) q.number("ttl", ttlSeconds);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof WriteOptions o && o.ack == ack && o.from == from && o.ttlSeconds == ttlSeconds;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(ack, from, ttlSeconds);
    }

    @Override
    public String toString() {
        return "WriteOptions[ack=" + (ack == 0 ? "default" : ack) + ", from=" + (from == 0 ? "default" : from)
                + (ttlSeconds == 0 ? "" : ", ttl=" + ttlSeconds + "s") + "]";
    }
}
