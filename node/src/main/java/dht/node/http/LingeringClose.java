package dht.node.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection after its last answer without losing that answer to a reset, as nginx and
 * Apache do ("lingering close").
 *
 * <p>Why: a connection closed while its client is still sending (a 40 KB header block refused with
 * 431 after the first 16 KB, a body we will not read) has unread bytes in the socket, or gets more
 * after the close; the kernel then answers with RST instead of FIN, and a client whose answer is
 * still in flight or unread may lose it. So the output is shut down instead (FIN after the answer),
 * and everything the client still sends is read and dropped until it closes its side or {@link #BOUND} has passed or {@link #MAX_DISCARDED_BYTES}
 * were dropped, whichever comes first; only then is the socket closed. A client that has nothing
 * more to send sees the FIN at once, as with a plain close: only the node holds the socket a little
 * longer. A client that has already ended its side has nothing left to send: its connection is closed
 * at once.
 */
final class LingeringClose extends ChannelInboundHandlerAdapter {
    static final Duration BOUND = Duration.ofSeconds(2);
    static final long MAX_DISCARDED_BYTES = 1 << 20;

    private long discarded;
    private ScheduledFuture<?> deadline;

    private LingeringClose() {
    }

    /** Once {@code lastWrite} is done (the answer is in the socket), closes its channel lingering. */
    static void after(ChannelFuture lastWrite) {
        lastWrite.addListener(f -> {
            if (f.isSuccess()) {
                start(lastWrite.channel());
            } else {
                lastWrite.channel().close(); // the client is gone or reset: nothing to protect
            }
        });
    }

    /** Shuts the output down now (call it once everything written is flushed) and drops input until the end. */
    static void start(Channel ch) {
        if (!ch.isActive()) return;
        if (!(ch instanceof DuplexChannel duplex) || ch.pipeline().get(LingeringClose.class) != null) {
            ch.close();
            return;
        }
        if (duplex.isInputShutdown()) {
            ch.close(); // the client ended its side: nothing left to drain, and nothing unread to cause a reset
            return;
        }
        LingeringClose handler = new LingeringClose();
        // First in the pipeline: what still arrives is dropped before the HTTP decoder spends time on it.
        ch.pipeline().addFirst("lingering-close", handler);
        handler.deadline = ch.eventLoop().schedule(() -> {
            ch.close(); // unread bytes may turn this one into a reset: the client had its time
        }, BOUND.toNanos(), TimeUnit.NANOSECONDS);
        duplex.shutdownOutput().addListener(f -> {
            if (!f.isSuccess()) ch.close();
        });
        // The sequencer may have paused reading (many pipelined answers pending): the end of input
        // is what this waits for, so read.
        ch.config().setAutoRead(true);
        ch.read();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf b) discarded += b.readableBytes();
        ReferenceCountUtil.release(msg);
        if (discarded > MAX_DISCARDED_BYTES) ctx.close();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // nothing for the handlers behind: they are done with this connection
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        // Half-closure is allowed on client connections, so the end of input no longer closes the
        // channel by itself: it is what this waits for.
        if (evt instanceof ChannelInputShutdownEvent) ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (deadline != null) deadline.cancel(false);
        super.channelInactive(ctx);
    }
}
