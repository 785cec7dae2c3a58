package dht.node.http;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;

/** A routed request: the HTTP message, its path, and its query string, parsed only when a route asks. */
public final class Request {
    private final FullHttpRequest http;
    private final String path;
    private final String query;
    private QueryParams params;

    Request(FullHttpRequest http, String path, String query) {
        this.http = http;
        this.path = path;
        this.query = query;
    }

    public FullHttpRequest http() {
        return http;
    }

    public HttpMethod method() {
        return http.method();
    }

    public String path() {
        return path;
    }

    public QueryParams params() throws BadRequestException {
        if (params == null) params = QueryParams.parse(query);
        return params;
    }
}
