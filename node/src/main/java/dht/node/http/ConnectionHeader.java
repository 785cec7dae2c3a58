package dht.node.http;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;

/** The Connection header of an answer, from whether the connection closes after it and the client's HTTP version. */
final class ConnectionHeader {
    private ConnectionHeader() {
    }

    /**
     * {@code close} when the connection ends after this answer; {@code keep-alive} for an HTTP/1.0
     * client that keeps it; nothing for HTTP/1.1 (persistent by default). A sender of Upgrade (a 426)
     * must name it in Connection too (RFC 9110, 7.8).
     */
    static void set(FullHttpResponse r, boolean close, boolean http10) {
        String upgrade = r.headers().contains(HttpHeaderNames.UPGRADE) ? "upgrade, " : "";
        if (close) {
            r.headers().set(HttpHeaderNames.CONNECTION, upgrade + HttpHeaderValues.CLOSE);
        } else if (http10) {
            r.headers().set(HttpHeaderNames.CONNECTION, upgrade + HttpHeaderValues.KEEP_ALIVE);
        } else if (!upgrade.isEmpty()) {
            r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
        }
    }
}
