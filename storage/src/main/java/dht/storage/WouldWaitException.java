package dht.storage;

/**
 * A point read in {@link ReadsWithoutWaiting}'s scope reached a block that is not in the page
 * cache. Not an error: the caller makes the read again where it may wait. One shared instance,
 * without a stack trace, as it is thrown on a hot path and carries nothing of its own.
 */
public final class WouldWaitException extends RuntimeException {
    public static final WouldWaitException INSTANCE = new WouldWaitException();

    private WouldWaitException() {
        super("the read would wait for a disk", null, false, false);
    }
}
