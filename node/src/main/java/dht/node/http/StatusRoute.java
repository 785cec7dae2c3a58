package dht.node.http;

import io.netty.handler.codec.http.HttpMethod;
import java.util.function.Supplier;

/**
 * {@code GET /v0/status}: the node's JSON report. Cheap and taken on the event loop, and it needs
 * no admission permit, so that readiness checks and operators get an answer even under overload.
 * {@code HEAD} answers the same head without the body, since health checks often use it.
 *
 * <p>Once a graceful stop has begun (admission closed) it answers 503 and closes, as every other
 * route does: the node is no longer ready, and a load balancer's health check should take it out
 * of rotation during the drain instead of sending it requests it will refuse.
 */
public final class StatusRoute implements Route {
    private final Supplier<String> report;
    private final Admission admission;

    public StatusRoute(Supplier<String> report, Admission admission) {
        this.report = report;
        this.admission = admission;
    }

    @Override
    public void handle(Request request, AnswerSlot slot) {
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            slot.respond(Responses.methodNotAllowed("GET, HEAD"));
            return;
        }
        if (slot.refuseIfStopping(admission)) return;
        // The same response for HEAD, Content-Length of the JSON included: Netty's HttpServerCodec
        // remembers each request's method and writes no body after the head of a HEAD answer.
        slot.respond(Responses.json(report.get()));
    }
}
