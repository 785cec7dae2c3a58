package dht.node.rpc;

import io.netty.channel.Channel;
import io.netty.channel.pool.ChannelHealthChecker;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;
import java.time.Duration;

/**
 * A pooled connection may be taken for a call while it is open and has sat unused for less than
 * the limit. A peer closes a connection idle for its idle timeout ({@code IdleTimeout}); one taken
 * just then would carry a call into a close, and the call would fail though the peer is well. With
 * the limit well under the peer's timeout (half of it), the pool lets such a connection go first.
 * A connection in use has no release time, so a call that takes long never makes it stale.
 */
final class FreshConnection implements ChannelHealthChecker {
    /** When the connection was last given back to the pool ({@link System#nanoTime()}); null while in use or never used. */
    static final AttributeKey<Long> RELEASED_AT = AttributeKey.valueOf("peerConnectionReleasedAt");

    private final long limitNanos;

    FreshConnection(Duration limit) {
        if (!limit.isPositive()) throw new IllegalArgumentException("the reuse limit must be positive, got " + limit);
        this.limitNanos = limit.toNanos();
    }

    @Override
    public Future<Boolean> isHealthy(Channel ch) {
        Long released = ch.attr(RELEASED_AT).get();
        boolean fresh = released == null || System.nanoTime() - released < limitNanos;
        return ch.eventLoop().newSucceededFuture(ch.isActive() && fresh);
    }
}
