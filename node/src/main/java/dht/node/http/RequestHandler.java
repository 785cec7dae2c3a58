package dht.node.http;

import io.netty.handler.codec.http.FullHttpRequest;

/**
 * Turns a request into an answer on its {@link AnswerSlot}. Called on the event loop; must not block.
 * It owns {@code request} and releases it (now, or once asynchronous work no longer needs it).
 */
@FunctionalInterface
public interface RequestHandler {
    void handle(FullHttpRequest request, AnswerSlot slot);

    /** Whether this write may share a group commit with the writes pipelined behind it ({@link Route#mayShareGroupCommit}). */
    default boolean mayShareGroupCommit(FullHttpRequest request) {
        return false;
    }
}
