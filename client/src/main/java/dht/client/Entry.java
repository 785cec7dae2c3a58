package dht.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One key and its value, as a scan returns them. Compared by content (the arrays' bytes). The
 * arrays are the entry's own: a caller that changes them changes this entry only.
 */
public record Entry(byte[] key, byte[] value) {
    public Entry {
        java.util.Objects.requireNonNull(key, "key");
        java.util.Objects.requireNonNull(value, "value");
    }

    /** The key decoded as UTF-8. */
    public String keyString() {
        return new String(key, StandardCharsets.UTF_8);
    }

    /** The value decoded as UTF-8. */
    public String valueString() {
        return new String(value, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Entry e && Arrays.equals(key, e.key) && Arrays.equals(value, e.value);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(key) + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Entry[" + keyString() + " -> " + value.length + " bytes]";
    }
}
