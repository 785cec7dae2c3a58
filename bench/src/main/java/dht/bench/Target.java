package dht.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/** One node to load: where to connect and what to put in the Host header. */
public record Target(String url, String host, int port) {

    public String hostHeader() {
        return port == 80 ? host : host + ":" + port;
    }

    public static Target parse(String url) {
        URI uri = null;
        try {
            uri = URI.create(url.trim());
        } catch (IllegalArgumentException notAUri) {
            // said below, as for a URI that is no http URL
        }
        if (uri == null || !"http".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("--url must look like http://host:port, got '" + url + "'");
        }
        int port = uri.getPort() == -1 ? 80 : uri.getPort();
        return new Target("http://" + uri.getHost() + ":" + port, uri.getHost(), port);
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
