package dht.node.http;

/**
 * Answers the requests of one path. Runs on the event loop and must not block; slow work goes to
 * another thread and completes the {@link AnswerSlot} from there. The router releases the request when
 * {@code handle} returns: a route that needs it longer retains it.
 */
@FunctionalInterface
public interface Route {
    void handle(Request request, AnswerSlot slot) throws BadRequestException;
}
