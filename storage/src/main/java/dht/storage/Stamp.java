package dht.storage;

/**
 * A version of a key without its value: its timestamp, whether it is a tombstone, its expiry
 * (epoch milliseconds, 0 for never and for a tombstone) and the copies its write asked for
 * ({@link Entry#copies()}, 0 when not known and for a tombstone). What {@link Store#stamp} returns,
 * for a caller that needs to know which version a key holds, not what it says (the hash trees of
 * anti-entropy): the engine reads it without copying the value.
 */
public record Stamp(long timestamp, boolean tombstone, long expiry, int copies) {
    public Stamp {
        if (expiry < 0) throw new IllegalArgumentException("negative expiry " + expiry);
        if (tombstone && (expiry != 0 || copies != 0)) throw new IllegalArgumentException("a tombstone has no expiry or copies");
        if (copies < 0 || copies > Entry.MAX_COPIES) throw new IllegalArgumentException("copies out of range: " + copies);
    }

    /** A version whose copies are not known. */
    public Stamp(long timestamp, boolean tombstone, long expiry) {
        this(timestamp, tombstone, expiry, 0);
    }

    /** The stamp of a value by its expiry word (its expiry and copies, {@link Entry#expiryWord()}). */
    static Stamp ofValue(long timestamp, long expiryWord) {
        return new Stamp(timestamp, false, Entry.expiryOf(expiryWord), Entry.copiesOf(expiryWord));
    }

    /** The stamp of {@code e}, or null for null. */
    public static Stamp of(Entry e) {
        return e == null ? null : new Stamp(e.timestamp(), e.isTombstone(), e.expiry(), e.copies());
    }

    /** This version as a read at {@code nowMillis} sees it, as {@link Entry#readAt}: expired, a tombstone. */
    public Stamp readAt(long nowMillis) {
        return expiry != 0 && nowMillis >= expiry ? new Stamp(timestamp, true, 0) : this;
    }

    /**
     * The newer of two versions of one key by {@link Entry#supersedes} (null: none), but for two
     * values of one timestamp, whose bytes decide: then {@code a}.
     */
    static Stamp newer(Stamp a, Stamp b) {
        if (b == null) return a;
        if (a == null) return b;
        if (a.timestamp != b.timestamp) return a.timestamp > b.timestamp ? a : b;
        return b.tombstone && !a.tombstone ? b : a;
    }

    /** Two values of one timestamp with different expiries or copies: only their bytes tell which one wins. */
    static boolean tiedApart(Stamp a, Stamp b) {
        return a != null && b != null && a.timestamp == b.timestamp && !a.tombstone && !b.tombstone
                && (a.expiry != b.expiry || a.copies != b.copies);
    }
}
