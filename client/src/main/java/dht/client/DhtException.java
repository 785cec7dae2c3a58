package dht.client;

/**
 * Base of every failure the client reports. Unchecked, so that it crosses {@code Stream} and
 * {@code CompletableFuture} boundaries unchanged; the subclasses say what happened.
 *
 * <p>{@link #node()} is the node that answered or failed (null when none is known) and
 * {@link #status()} the HTTP status of its answer (0 when there was none), {@link #reason()} the
 * one-line reason the node gave with it (empty when it gave none).
 */
public class DhtException extends RuntimeException {
    private final String node;
    private final int status;
    private final String reason;

    public DhtException(String message, String node, int status, Throwable cause) {
        this(message, node, status, "", cause);
    }

    /** With the node's {@code reason} for an answer of {@code status} (the first line of its body). */
    public DhtException(String message, String node, int status, String reason, Throwable cause) {
        super(message, cause);
        this.node = node;
        this.status = status;
        this.reason = reason == null ? "" : reason;
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

    /** The node's one-line reason for its answer, as it sent it; empty when there was none. */
    public String reason() {
        return reason;
    }
}
