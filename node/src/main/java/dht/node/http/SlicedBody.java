package dht.node.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;

/**
 * A complete answer with a large body, written in slices of {@link #SLICE} bytes only while the
 * connection is writable, so that a client reading slowly (or not at all) holds about the outbound
 * buffer's high-water mark of the node's direct memory, not the whole body: Netty copies whatever
 * reaches the socket into direct memory, and a body of several MB written at once is copied whole.
 * The bytes on the wire are the same as for the answer written at once (head with its
 * Content-Length, then the body).
 *
 * <p>When a flush leaves the channel unwritable (the socket did not take what was written) it
 * reports a stall, and the sequencer then counts the answer as waiting (its permit given back, its
 * bytes against the budget for waiting answers): a client may take as long as it likes to read it.
 *
 * <p>Invariants (event loop only): the head goes first, the slices in order, each exactly once;
 * {@code done} and {@code onEnd} run exactly once, when the last slice is handed to Netty or when
 * the connection goes; the response is released exactly once.
 */
final class SlicedBody implements ResponseStream {
    /** Bodies larger than this are sliced; also the slice size. */
    static final int SLICE = 64 * 1024;

    private final FullHttpResponse response;
    private final Runnable onEnd;
    private final Runnable onStall;
    private ChannelHandlerContext ctx;
    private Done done;
    private boolean over;
    private boolean pumping;
    private boolean again;

    /**
     * @param onEnd   runs once the whole body is handed to Netty, or the connection is gone
     * @param onStall runs when what was written could not all go to the socket (the channel is still
     *                not writable after a flush): the client is not keeping up; may run more than once
     */
    SlicedBody(FullHttpResponse response, Runnable onEnd, Runnable onStall) {
        this.response = response;
        this.onEnd = onEnd;
        this.onStall = onStall;
    }

    static boolean worthSlicing(FullHttpResponse r) {
        return r.content().readableBytes() > SLICE;
    }

    @Override
    public void start(ChannelHandlerContext ctx, boolean keepAlive, boolean http10, Done done) {
        this.ctx = ctx;
        this.done = done;
        ctx.write(new DefaultHttpResponse(response.protocolVersion(), response.status(), response.headers()));
        pump();
    }

    /**
     * Writes slices while the channel is writable. Netty reports writability changes from inside
     * {@code write} and {@code flush}, so a change that arrives while this runs only asks it to go
     * round again: slices written from inside Netty's own write and flush garble the body.
     */
    private void pump() {
        if (pumping) {
            again = true;
            return;
        }
        pumping = true;
        boolean last = false;
        boolean stalled = false;
        try {
            do {
                again = false;
                ByteBuf body = response.content();
                while (!over && ctx.channel().isWritable()) {
                    ByteBuf slice = body.readRetainedSlice(Math.min(SLICE, body.readableBytes()));
                    if (body.isReadable()) {
                        ctx.write(new DefaultHttpContent(slice));
                    } else {
                        ctx.writeAndFlush(new DefaultLastHttpContent(slice));
                        end();
                        last = true;
                    }
                }
                if (!over) ctx.flush();
            } while (again && !over);
            stalled = !over && !ctx.channel().isWritable();
        } finally {
            pumping = false;
        }
        if (last) {
            done.finished(false);
        } else if (stalled) {
            onStall.run();
        }
    }

    private void end() {
        over = true;
        response.release();
        onEnd.run();
    }

    /** Body bytes not yet handed to Netty. */
    long unwritten() {
        return over ? 0 : response.content().readableBytes();
    }

    @Override
    public void writabilityChanged() {
        if (!over) pump();
    }

    @Override
    public void cancel() {
        if (!over) end();
    }

    @Override
    public void discard() {
        if (!over) end();
    }
}
