package dht.node.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection once its client has taken nothing of what is left to it (its answers not yet
 * taken by the socket) for a whole period, checked once a period while {@code watching} holds.
 * Progress is the socket taking more of what is left, or, on epoll or io_uring, the kernel having sent data
 * within the period: with a send buffer of megabytes the socket takes more only once the client has
 * read a third of it, while a client that reads at all keeps opening its window. Serves the graceful
 * stop's write-out and a stalled sliced answer alike. Event loop only.
 */
final class StallWatch {
    private static final Logger log = LoggerFactory.getLogger(StallWatch.class);

    private final ChannelHandlerContext ctx;
    private final long millis;
    private final LongSupplier unwritten;
    private final BooleanSupplier watching;
    /** The log line saying why the connection is closed, given what was left unwritten. */
    private final LongFunction<String> why;
    private final ScheduledFuture<?> task;
    private long unwrittenAtLastLook;

    /**
     * @param unwritten the bytes of the connection's answers not yet taken by the socket
     * @param watching  false once the watch is no longer needed (it then cancels itself)
     */
    StallWatch(ChannelHandlerContext ctx, long millis, LongSupplier unwritten, BooleanSupplier watching,
               LongFunction<String> why) {
        this.ctx = ctx;
        this.millis = millis;
        this.unwritten = unwritten;
        this.watching = watching;
        this.why = why;
        this.unwrittenAtLastLook = unwritten.getAsLong();
        this.task = ctx.executor().scheduleAtFixedRate(this::look, millis, millis, TimeUnit.MILLISECONDS);
    }

    void cancel() {
        task.cancel(false);
    }

    private void look() {
        if (!watching.getAsBoolean()) {
            cancel();
            return;
        }
        long left = unwritten.getAsLong();
        if (left < unwrittenAtLastLook || sentWithin(millis)) {
            unwrittenAtLastLook = left;
            return;
        }
        cancel();
        log.info("{}", why.apply(left));
        ctx.close();
    }

    /** On epoll or io_uring: the kernel sent data on this connection within the last {@code millis}. */
    private boolean sentWithin(long millis) {
        if (ctx.channel() instanceof EpollSocketChannel epoll) {
            return epoll.isActive() && epoll.tcpInfo().lastDataSent() < millis;
        }
        return ctx.channel() instanceof IoUringSocketChannel uring && uring.isActive()
                && uring.tcpInfo().lastDataSent() < millis;
    }
}
