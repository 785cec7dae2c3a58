package dht.node.http;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * {@code GET /metrics}: the node's metrics in the Prometheus text format. Read-only, so it needs no
 * admin token; like {@code /v0/status} it takes no admission permit and is answered on the event
 * loop, so that a scrape still gets through when the node refuses client requests with 503 (a
 * scrape formats a few hundred lines). It keeps answering during a graceful stop, so that the
 * drain itself can be watched.
 */
public final class MetricsRoute implements Route {
    /** The Prometheus text exposition format, version 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final Supplier<String> scrape;

    public MetricsRoute(Supplier<String> scrape) {
        this.scrape = scrape;
    }

    @Override
    public void handle(Request request, AnswerSlot slot) {
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            slot.respond(Responses.methodNotAllowed("GET, HEAD"));
            return;
        }
        slot.respond(() -> {
            FullHttpResponse r = Responses.bytes(HttpResponseStatus.OK, scrape.get().getBytes(StandardCharsets.UTF_8));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, CONTENT_TYPE);
            return r;
        });
    }
}
