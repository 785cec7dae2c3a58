package dht.node.rpc;

/** A request to a peer failed without an HTTP answer: known down, refused, timed out or cut. */
public final class PeerUnavailableException extends RuntimeException {
    public PeerUnavailableException(String message, Throwable cause) {
        // No stack trace: this is an expected condition on a hot path.
        super(message, cause, false, false);
    }
}
