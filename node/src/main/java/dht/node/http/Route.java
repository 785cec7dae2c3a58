package dht.node.http;

/**
 * Answers the requests of one path. Runs on the event loop and must not block; slow work goes to
 * another thread and completes the {@link AnswerSlot} from there. The router releases the request when
 * {@code handle} returns: a route that needs it longer retains it.
 */
@FunctionalInterface
public interface Route {
    void handle(Request request, AnswerSlot slot) throws BadRequestException;

    /**
     * Whether this write may start together with the writes pipelined right behind it, so that their
     * store calls reach the store as one ordered group commit ({@link DispatchWindow}). Only a route
     * whose writes each take effect in the order they start, whatever runs beside them, says yes.
     * Asked on the event loop before the request runs, by its method alone (the router has not
     * parsed the request yet); must not block.
     */
    default boolean mayShareGroupCommit(io.netty.handler.codec.http.HttpMethod method) {
        return false;
    }
}
