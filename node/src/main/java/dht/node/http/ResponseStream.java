package dht.node.http;

import io.netty.channel.ChannelHandlerContext;

/**
 * A response written piece by piece (a scan), as opposed to a complete {@code FullHttpResponse}.
 * The {@link ResponseSequencer} starts it only when every earlier response on the connection is
 * written, and starts nothing after it until it reports {@link Done#finished}. All methods here are
 * called on the channel's event loop.
 */
public interface ResponseStream {

    /** How a stream tells the sequencer it is over; call on the event loop, exactly once. */
    interface Done {
        /** The response is complete ({@code close == false}) or the connection must be closed. */
        void finished(boolean close);
    }

    /**
     * This response is now at the head of the connection. {@code keepAlive} is the request's wish;
     * {@code http10}: the client speaks HTTP/1.0, which has no chunked encoding.
     */
    void start(ChannelHandlerContext ctx, boolean keepAlive, boolean http10, Done done);

    /** The channel's writability changed (the writer may resume). */
    void writabilityChanged();

    /** The connection is gone: stop at once and release everything. */
    void cancel();

    /** The stream will never start (the connection closed before its turn): release what it holds. */
    void discard();

    /**
     * Before it starts: the head it writes (or the complete answer it gives instead) carries
     * {@code answerProof} as {@link dht.node.rpc.ClusterSecret#ANSWER_HEADER}, and records it
     * streams are sealed by {@code seal}. Any thread.
     */
    default void proveWith(String answerProof, dht.node.rpc.StreamSeal seal) {
    }
}
