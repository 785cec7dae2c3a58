package dht.client;

import java.util.Objects;

/** Argument checks shared by the public API: programming errors fail before anything is sent. */
final class Checks {
    private Checks() {
    }

    static int positive(String name, int value) {
        if (value < 1) throw new IllegalArgumentException(name + " must be positive, got " + value);
        return value;
    }

    /** A key: the API's ids are non-empty. */
    static byte[] key(byte[] key) {
        Objects.requireNonNull(key, "key");
        if (key.length == 0) throw new IllegalArgumentException("key must not be empty");
        return key;
    }
}
