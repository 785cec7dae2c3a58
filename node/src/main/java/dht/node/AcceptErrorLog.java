package dht.node;

import dht.node.text.LineThrottle;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of the listening socket's pipeline: a failed accept (the usual cause, the
 * process out of file descriptors) is logged as one line, at most once every 10 seconds with how
 * many more there were, instead of Netty's warning with a stack trace for each. Netty's acceptor,
 * before this handler, has already paused accepting for a second; the node keeps serving the
 * connections it has and accepts again once descriptors are free.
 */
final class AcceptErrorLog extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(AcceptErrorLog.class);
    private final LineThrottle line = new LineThrottle(Duration.ofSeconds(10));

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        long failed = line.occurred();
        if (failed == 0) return;
        long since = failed - 1;
        log.warn("accepting a connection failed: {}{}", cause.toString(),
                since > 0 ? " (and " + since + " more times since the last such line)" : "");
    }
}
