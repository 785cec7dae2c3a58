package dht.client;

/**
 * Base of every failure the client reports. Unchecked, so that it crosses {@code Stream} and
 * {@code CompletableFuture} boundaries unchanged; the subclasses say what happened.
 *
 * <p>{@link #node()} is the node that answered or failed (null when none is known) and
 * {@link #status()} the HTTP status of its answer (0 when there was none).
 */
public class DhtException extends RuntimeException {
    private final String node;
    private final int status;

    public DhtException(String message, String node, int status, Throwable cause) {
        super(message, cause);
        this.node = node;
        this.status = status;
    }

    public DhtException(String message, Throwable cause) {
        this(message, null, 0, cause);
    }

    /** The base URL of the node involved, or null. */
    public String node() {
        return node;
    }

    /** The HTTP status of the node's answer, or 0 when there was no answer. */
    public int status() {
        return status;
    }
}
