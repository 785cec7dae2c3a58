package dht.node.cluster;

import dht.node.exec.Completions;

/**
 * A replica refused a call made on an older membership version than its own, having applied
 * nothing ({@link MembershipFence}): the coordinator counts that replica failed, learns the newer
 * version and asks again under it ({@link FencedRetry}).
 */
public final class StaleMembershipException extends IllegalStateException {
    private final String peer;
    private final long version;

    public StaleMembershipException(String peer, long version, String message) {
        super(message, null);
        this.peer = peer;
        this.version = version;
    }

    /** The replica that refused. */
    public String peer() {
        return peer;
    }

    /** The replica's membership version, newer than the call's. */
    public long version() {
        return version;
    }

    /** {@code failure} as this, through one CompletionException, or null if it is something else. */
    public static StaleMembershipException of(Throwable failure) {
        Throwable t = Completions.cause(failure);
        return t instanceof StaleMembershipException s ? s : null;
    }
}
