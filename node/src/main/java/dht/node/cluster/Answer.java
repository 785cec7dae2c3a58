package dht.node.cluster;

/**
 * What a coordinated request came to, before it is turned into an HTTP response.
 * {@code value} is set only for {@link Kind#FOUND}, {@code reason} only for {@link Kind#STORE_DAMAGED}.
 */
public record Answer(Kind kind, byte[] value, String reason) {
    public enum Kind {
        /** GET: the newest version among the answers is a value (200). */
        FOUND,
        /** GET: absent or deleted (404). */
        NOT_FOUND,
        /** PUT acknowledged by ack replicas (201). */
        STORED,
        /** DELETE acknowledged by ack replicas (202). */
        DELETED,
        /** Fewer than ack replicas answered in time (504). */
        NOT_ENOUGH_REPLICAS,
        /** Fewer than ack replicas answered, and at least one of the others refused for overload (504 with Retry-After). */
        REPLICAS_BUSY,
        /** GET: short of ack answers because this node had no room to hold the value now (503). */
        OVERLOADED,
        /** GET: fewer than ack replicas answered, this node's store among them for a damaged table (504, saying so). */
        STORE_DAMAGED
    }

    public Answer(Kind kind, byte[] value) {
        this(kind, value, null);
    }

    public static Answer found(byte[] value) { return new Answer(Kind.FOUND, value); }
    public static final Answer NOT_FOUND = new Answer(Kind.NOT_FOUND, null);
    public static final Answer STORED = new Answer(Kind.STORED, null);
    public static final Answer DELETED = new Answer(Kind.DELETED, null);
    public static final Answer NOT_ENOUGH_REPLICAS = new Answer(Kind.NOT_ENOUGH_REPLICAS, null);
    public static final Answer REPLICAS_BUSY = new Answer(Kind.REPLICAS_BUSY, null);
    public static final Answer OVERLOADED = new Answer(Kind.OVERLOADED, null);

    /** Short of ack answers because this node's store found {@code damage} (a table's file and what is wrong with it). */
    public static Answer storeDamaged(String damage) { return new Answer(Kind.STORE_DAMAGED, null, damage); }
}
