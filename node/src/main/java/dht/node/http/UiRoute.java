package dht.node.http;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /ui}: the status page for people, one self-contained HTML file (its script and style
 * inline) read once from this module's resources; nothing is loaded from elsewhere. The page polls
 * this node's {@code /v0/status} and {@code /metrics} itself. Like those, it needs no admission
 * permit or token.
 */
public final class UiRoute implements Route {
    private static final String RESOURCE = "/dht/node/ui/index.html";

    private final byte[] page;

    public UiRoute() {
        try (InputStream in = UiRoute.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("missing resource " + RESOURCE);
            this.page = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void handle(Request request, AnswerSlot slot) {
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            slot.respond(Responses.methodNotAllowed("GET, HEAD"));
            return;
        }
        FullHttpResponse r = Responses.html(page);
        r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
        slot.respond(r);
    }
}
