package dht.node.http;

import dht.node.rpc.ClusterSecret;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;

/**
 * Sends each request to the route for its exact path; any other path is a 400 (the contract's
 * answer for unknown paths). Bad input a route reports as {@link BadRequestException} becomes a 400
 * with the exception's message as the reason.
 *
 * <p>With a cluster secret, a request for any path under {@value #INTERNAL} must prove it
 * ({@link ClusterSecret}) before its route is even looked up: without a proof it is answered 401,
 * with a wrong or stale one 403, and nothing is read or changed. The answer to a request that
 * proved it proves it in turn ({@link AnswerSlot#proveAnswer}). Without a secret, the answer to
 * an internal request carries a node's mark instead ({@link dht.node.rpc.MemberAnswer}).
 */
public final class Router implements RequestHandler {
    static final String INTERNAL = "/internal/";

    private final Map<String, Route> routes;
    /** The routes again, by index: a path found without allocating ({@link #mayShareGroupCommit}). */
    private final String[] paths;
    private final Route[] pathRoutes;
    private final RequestMeter meter;
    /** Null: internal paths are open to anyone who reaches the port. */
    private final ClusterSecret secret;

    public Router(Map<String, Route> routes) {
        this(routes, RequestMeter.NONE, null);
    }

    public Router(Map<String, Route> routes, ClusterSecret secret) {
        this(routes, RequestMeter.NONE, secret);
    }

    /**
     * @param meter  told of every request routed (not those the pipeline refused before they were read)
     * @param secret what internal requests must prove; null: internal paths are open to anyone who reaches the port
     */
    public Router(Map<String, Route> routes, RequestMeter meter, ClusterSecret secret) {
        this.routes = Map.copyOf(routes);
        this.paths = this.routes.keySet().toArray(String[]::new);
        this.pathRoutes = new Route[paths.length];
        for (int i = 0; i < paths.length; i++) pathRoutes[i] = this.routes.get(paths[i]);
        this.meter = meter;
        this.secret = secret;
    }

    @Override
    public void handle(FullHttpRequest http, AnswerSlot slot) {
        long start = System.nanoTime();
        try {
            String uri = http.uri();
            if (hasControlCharacter(uri)) {
                slot.meter(meter, RequestMeter.Operation.OTHER, start);
                slot.respond(Responses.badRequest("control character in the request target (percent-encode bytes like %00)"));
                return;
            }
            if (uri.indexOf('#') >= 0) { // a fragment is never sent: the decoder would cut the key short at it
                slot.meter(meter, RequestMeter.Operation.OTHER, start);
                slot.respond(Responses.badRequest("'#' in the request target (percent-encode it as %23)"));
                return;
            }
            Request request = parse(http);
            if (request.path().startsWith(INTERNAL)) {
                if (secret == null) slot.markAnswer();
                else if (!proven(http, slot)) return;
            }
            Route route = routes.get(request.path());
            slot.meter(meter, route == null ? RequestMeter.Operation.OTHER : operation(request), start);
            if (route == null) {
                slot.respond(Responses.badRequest("unknown path"));
                return;
            }
            route.handle(request, slot);
        } catch (BadRequestException e) {
            slot.respond(Responses.badRequest(e.getMessage()));
        } finally {
            http.release();
        }
    }

    /** Whether the request proves the cluster secret; if not, it is answered here. */
    private boolean proven(FullHttpRequest http, AnswerSlot slot) {
        if (http.headers().getAll(ClusterSecret.HEADER).size() > 1) {
            // Which one would count is a guess a relay could exploit: none does.
            slot.respond(Responses.text(HttpResponseStatus.FORBIDDEN, "more than one " + ClusterSecret.HEADER + " header"));
            return false;
        }
        ClusterSecret.Verdict v = secret.verify(http.method().name(), http.uri(), ClusterSecret.Headers.of(http.headers()), http.content(),
                http.headers().get(ClusterSecret.HEADER), System.currentTimeMillis());
        switch (v) {
            case GOOD -> {
                slot.proveAnswer(secret, http.headers().get(ClusterSecret.HEADER));
                return true;
            }
            case MISSING -> {
                var r = Responses.text(HttpResponseStatus.UNAUTHORIZED, "internal paths need the cluster secret's proof ("
                        + ClusterSecret.HEADER + "); bin/dht takes the secret with --cluster-secret-file PATH"
                        + " (bin/dht cluster keeps it in DATA/cluster-secret)");
                r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "DHT-HMAC-SHA256");
                slot.respond(r);
            }
            case WRONG -> slot.respond(Responses.text(HttpResponseStatus.FORBIDDEN,
                    "wrong or stale proof of the cluster secret (another secret, or clocks more than "
                            + ClusterSecret.WINDOW.toSeconds() + " s apart)"));
        }
        return false;
    }

    /**
     * The route of the request's path decides; a request the router would refuse shares nothing.
     * Asked of every pipelined write before {@link #handle}: the path is compared in place, not cut
     * out of the target, so that asking allocates nothing.
     */
    @Override
    public boolean mayShareGroupCommit(FullHttpRequest http) {
        String uri = http.uri();
        if (hasControlCharacter(uri) || uri.indexOf('#') >= 0) return false;
        int start = pathStart(uri);
        int end = pathEnd(uri, start);
        for (int i = 0; i < paths.length; i++) {
            String p = paths[i];
            if (p.length() == end - start && uri.startsWith(p, start)) return pathRoutes[i].mayShareGroupCommit(http.method());
        }
        return false;
    }

    /** What a request to a known path is, for the {@link RequestMeter}. */
    private static RequestMeter.Operation operation(Request request) {
        String path = request.path();
        if (path.equals("/v0/entity")) {
            HttpMethod m = request.method();
            if (m.equals(HttpMethod.GET)) return RequestMeter.Operation.GET;
            if (m.equals(HttpMethod.PUT)) return RequestMeter.Operation.PUT;
            if (m.equals(HttpMethod.DELETE)) return RequestMeter.Operation.DELETE;
            return RequestMeter.Operation.OTHER;
        }
        if (path.equals("/v0/entities")) return RequestMeter.Operation.SCAN;
        if (path.equals("/v0/status")) return RequestMeter.Operation.STATUS;
        if (path.startsWith("/internal/")) return RequestMeter.Operation.REPLICA;
        if (path.equals("/metrics")) return RequestMeter.Operation.METRICS;
        if (path.startsWith("/ui")) return RequestMeter.Operation.UI;
        if (path.startsWith("/admin/")) return RequestMeter.Operation.ADMIN;
        return RequestMeter.Operation.OTHER;
    }

    /** Splits the request target into its path and its query (without the fragment). */
    private static Request parse(FullHttpRequest http) {
        String uri = http.uri();
        int start = pathStart(uri);
        int end = targetEnd(uri, start);
        int pathEnd = pathEnd(uri, start);
        String path = uri.substring(start, pathEnd);
        String query = pathEnd == end ? "" : uri.substring(pathEnd + 1, end);
        return new Request(http, path, query);
    }

    /** Where the target ends: at its fragment, if it has one. */
    private static int targetEnd(String uri, int start) {
        int hash = uri.indexOf('#', start);
        return hash < 0 ? uri.length() : hash;
    }

    /** Where the path that starts at {@code start} ends: at the query or the fragment. */
    private static int pathEnd(String uri, int start) {
        int end = targetEnd(uri, start);
        int q = uri.indexOf('?', start);
        return q < 0 || q > end ? end : q;
    }

    /**
     * RFC 9112 allows only visible characters in a request target; a raw NUL or other control byte
     * is a malformed request (a 400), not part of a key. Bytes above 0x7F are let through: clients
     * send UTF-8 keys unescaped, and they reach the key as the same bytes.
     */
    private static boolean hasControlCharacter(String uri) {
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c < 0x21 || c == 0x7F) return true;
        }
        return false;
    }

    /** Origin form ({@code /path}) or absolute form ({@code http://host/path}), as HTTP/1.1 requires of servers. */
    private static int pathStart(String uri) {
        if (uri.startsWith("/")) return 0;
        int scheme = uri.indexOf("://");
        if (scheme < 0) return 0;
        int slash = uri.indexOf('/', scheme + 3);
        return slash < 0 ? uri.length() : slash;
    }
}
