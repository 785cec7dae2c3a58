package dht.node.http;

import io.netty.handler.codec.http.HttpMethod;
import java.util.function.Supplier;

/**
 * {@code GET /v0/status}: the node's JSON report. Cheap and taken on the event loop, and it needs
 * no admission permit, so that readiness checks and operators get an answer even under overload.
 * {@code HEAD} answers the same head without the body, since health checks often use it.
 */
public final class StatusRoute implements Route {
    private final Supplier<String> report;

    public StatusRoute(Supplier<String> report) {
        this.report = report;
    }

    @Override
    public void handle(Request request, Slot slot) {
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            slot.respond(Responses.methodNotAllowed("GET, HEAD"));
            return;
        }
        // The same response for HEAD, Content-Length of the JSON included: Netty's HttpServerCodec
        // remembers each request's method and writes no body after the head of a HEAD answer.
        slot.respond(Responses.json(report.get()));
    }
}
