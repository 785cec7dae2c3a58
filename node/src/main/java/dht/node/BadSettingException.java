package dht.node;

/**
 * A setting the node refuses before it starts (a {@code -D} property in {@code DHT_JAVA_OPTS} with a
 * value it does not know). Its message names the setting and what it accepts, so the launcher says
 * it in one line and exits as for bad usage; any other exception at start is a fault, with its trace.
 */
public final class BadSettingException extends IllegalArgumentException {
    public BadSettingException(String message) {
        super(message);
    }
}
