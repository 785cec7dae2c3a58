package dht.node.cluster;

/**
 * A membership change refused or failed, with the HTTP status that says why: 400 bad input, 404 not
 * a member, 409 a conflict (a second join, a change already in progress, too few members left, a
 * live node to remove), 503 a node the change needs did not answer. Nothing was changed.
 */
public final class MembershipChangeException extends Exception {
    private final int status;

    public MembershipChangeException(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
