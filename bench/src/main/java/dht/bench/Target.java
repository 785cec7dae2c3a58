package dht.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * One node to load: where to connect and what to put in the Host header. An {@code https://} URL
 * is spoken to over TLS, its certificate checked against the JVM's trust store (for a test CA:
 * {@code -Djavax.net.ssl.trustStore=ca.p12}).
 */
public record Target(String url, String host, int port) {

    public boolean tls() {
        return url.startsWith("https://");
    }

    public String hostHeader() {
        return port == 80 ? host : host + ":" + port;
    }

    /** One node's URL, {@code http[s]://host[:port]} as every tool takes it ({@link dht.client.NodeUrl}). */
    public static Target parse(String url) {
        URI uri;
        try {
            uri = URI.create(dht.client.NodeUrl.normalise(url));
        } catch (dht.client.NodeUrl.RefusedException e) {
            throw new IllegalArgumentException(e.flaw() == dht.client.NodeUrl.Flaw.PORT_OUT_OF_RANGE
                    ? "the port of --url must be 1..65535, got '" + url + "'"
                    : "--url must look like http://host:port or https://host:port, got '" + url + "'");
        }
        int port = uri.getPort() != -1 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
        return new Target(uri.getScheme() + "://" + uri.getHost() + ":" + port, uri.getHost(), port);
    }

    public static List<Target> parseList(String urls) {
        List<Target> out = new ArrayList<>();
        for (String u : urls.split(",")) {
            if (!u.isBlank()) {
                out.add(parse(u));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("--url needs at least one URL");
        }
        return out;
    }
}
