package dht.node.http;

import io.netty.handler.codec.http.HttpMethod;
import java.util.function.Supplier;

/**
 * {@code GET /v0/status}: the node's JSON report. Cheap and taken on the event loop, and it needs
 * no admission permit, so that readiness checks and operators get an answer even under overload.
 */
public final class StatusRoute implements Route {
    private final Supplier<String> report;

    public StatusRoute(Supplier<String> report) {
        this.report = report;
    }

    @Override
    public void handle(Request request, Slot slot) {
        if (!request.method().equals(HttpMethod.GET)) {
            slot.respond(Responses.methodNotAllowed("GET"));
            return;
        }
        slot.respond(Responses.json(report.get()));
    }
}
