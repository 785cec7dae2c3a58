package dht.node.cluster;

/**
 * A peer refused an operation for overload (it answered 503): it is up, and the same request a
 * moment later may well succeed. The coordinator tells its client so (a Retry-After on the 504)
 * rather than reporting it like a replica that is down or frozen.
 */
public final class ReplicaBusyException extends IllegalStateException {
    public ReplicaBusyException(String message) {
        super(message);
    }
}
