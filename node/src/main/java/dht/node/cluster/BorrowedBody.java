package dht.node.cluster;

import io.netty.buffer.ByteBuf;

/**
 * When a request's body is large enough to be written to the store straight from Netty's buffer
 * (off the heap, borrowed) rather than copied into an array first, and how it is made one piece.
 *
 * <p>Invariant: whoever takes {@link #contiguous} owns one reference to what it returns and must
 * release it exactly once, after the store is done with every value borrowed from it.
 */
public final class BorrowedBody {
    /** Bodies this large are borrowed: a quarter of G1's smallest humongous size (512 KiB); smaller ones are cheap to copy. */
    public static final int BORROW_AT = 128 << 10;

    private BorrowedBody() {}

    /**
     * {@code body}'s readable bytes as one buffer the caller owns a reference to: the same buffer,
     * retained, when it is one piece already, else a copy into one direct buffer (a body read from
     * the socket in many pieces).
     */
    public static ByteBuf contiguous(ByteBuf body) {
        if (body.nioBufferCount() == 1) return body.retainedSlice();
        ByteBuf copy = body.alloc().directBuffer(body.readableBytes());
        try {
            copy.writeBytes(body, body.readerIndex(), body.readableBytes());
            return copy;
        } catch (RuntimeException | Error e) {
            copy.release();
            throw e;
        }
    }
}
