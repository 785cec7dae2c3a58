package dht.storage;

import java.util.Arrays;

/**
 * One version of one key, as the engine stores it: a value or a tombstone, with the timestamp of
 * the write that made it.
 *
 * <p>Invariant: {@code value == null} exactly when this is a tombstone. Arrays are owned by the
 * entry once it is built; callers must not mutate them.
 */
public final class Entry {
    private final byte[] key;
    private final byte[] value;
    private final long timestamp;

    private Entry(byte[] key, byte[] value, long timestamp) {
        this.key = key;
        this.value = value;
        this.timestamp = timestamp;
    }

    public static Entry value(byte[] key, byte[] value, long timestamp) {
        if (value == null) throw new IllegalArgumentException("value must not be null; use tombstone()");
        return new Entry(key, value, timestamp);
    }

    public static Entry tombstone(byte[] key, long timestamp) {
        return new Entry(key, null, timestamp);
    }

    public byte[] key() { return key; }

    /** The value, or {@code null} for a tombstone. */
    public byte[] value() { return value; }

    public long timestamp() { return timestamp; }

    public boolean isTombstone() { return value == null; }

    /**
     * Last write wins: is this version newer than {@code other} (of the same key)? Ties on the
     * timestamp are broken the same way on every replica so that they converge: a tombstone beats a
     * value, and between two values the greater one (as unsigned bytes) wins.
     */
    public boolean supersedes(Entry other) {
        if (other == null) return true;
        if (timestamp != other.timestamp) return timestamp > other.timestamp;
        if (isTombstone() != other.isTombstone()) return isTombstone();
        if (isTombstone()) return false;
        return Arrays.compareUnsigned(value, other.value) > 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Entry e && timestamp == e.timestamp
                && Arrays.equals(key, e.key) && Arrays.equals(value, e.value);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key) * 31 + Long.hashCode(timestamp);
    }

    @Override
    public String toString() {
        return "Entry[" + new String(key, java.nio.charset.StandardCharsets.UTF_8) + "@" + timestamp
                + (isTombstone() ? " tombstone" : " " + value.length + " bytes") + "]";
    }
}
