package dht.node.http;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code GET /ui}: the status page for people, one self-contained HTML file (its script and style
 * inline) read once from this module's resources; nothing is loaded from elsewhere. The page polls
 * this node's {@code /v0/status} and {@code /metrics} itself; as sent, it already lists every
 * member with "up" or "down", as this node sees it then, so that a client without a script engine
 * (curl, a health check, a text browser) reads them too. Like those, it needs no admission permit
 * or token.
 */
public final class UiRoute implements Route {
    private static final String RESOURCE = "/dht/node/ui/index.html";
    /** Where the page's member rows and this node's URL go, as the resource has them. */
    private static final String ROWS = "<tbody></tbody>";
    private static final String SELF = "<span id=\"self\">…</span>";

    private final String page;
    private final String self;
    private final Supplier<List<Row>> members;

    /**
     * One row of the page: a node, whether this node sees it up (itself: up), whether it is this
     * node, and its role's class when it is not simply a member ({@code joining}, {@code leaving},
     * {@code outside}: removed and still running), which the page's style labels in words.
     */
    public record Row(String url, boolean up, boolean self, String role) {
    }

    /**
     * @param self    this node's URL
     * @param members the rows in the page's order, read at each request
     */
    public UiRoute(String self, Supplier<List<Row>> members) {
        try (InputStream in = UiRoute.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("missing resource " + RESOURCE);
            this.page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!page.contains(ROWS) || !page.contains(SELF)) throw new IllegalStateException(RESOURCE + " lacks its placeholders");
        this.self = self;
        this.members = members;
    }

    /** The page with this node's URL and a row per member, as the script would first draw them. */
    String render() {
        StringBuilder rows = new StringBuilder("<tbody>\n");
        for (Row m : members.get()) {
            String state = m.up() ? "up" : "down";
            String classes = ((m.self() ? "self " : "") + (m.role() == null ? "" : m.role())).strip();
            rows.append("  <tr").append(classes.isEmpty() ? "" : " class=\"" + classes + "\"").append("><td>")
                    .append(escape(m.url())).append("</td><td class=\"state ").append(state).append("\">")
                    .append(state).append("</td><td class=\"num rate\">–</td><td class=\"num p99\">–</td>")
                    .append("<td class=\"num storage\">–</td><td class=\"num hints\">–</td></tr>\n");
        }
        rows.append("  </tbody>");
        return page.replace(SELF, "<span id=\"self\">" + escape(self) + "</span>").replace(ROWS, rows);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    @Override
    public void handle(Request request, AnswerSlot slot) {
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            slot.respond(Responses.methodNotAllowed("GET, HEAD"));
            return;
        }
        FullHttpResponse r = Responses.html(render().getBytes(StandardCharsets.UTF_8));
        r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
        slot.respond(r);
    }
}
