package dht.client;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The nodes a client talks to, as normalised base URLs ({@code http://host:port}, no trailing
 * slash). Any node coordinates any request, so requests are spread round-robin; a request that
 * cannot connect moves on to the next node.
 */
final class Nodes {
    private final List<String> bases;
    private final AtomicInteger next = new AtomicInteger();

    Nodes(List<String> urls) {
        if (urls.isEmpty()) throw new IllegalArgumentException("at least one node URL is needed");
        LinkedHashSet<String> distinct = new LinkedHashSet<>();
        for (String url : urls) distinct.add(normalise(url));
        this.bases = List.copyOf(new ArrayList<>(distinct));
    }

    /** {@code http[s]://host[:port]} with an optional trailing slash; anything else is refused. */
    static String normalise(String url) {
        URI uri;
        try {
            uri = new URI(url.trim());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("not a URL: '" + url + "'", e);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("a node URL is http://host[:port] or https://host[:port], got '" + url + "'");
        }
        boolean noPath = uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/");
        if (uri.getHost() == null || !noPath || uri.getRawQuery() != null || uri.getRawFragment() != null
                || uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException("a node URL is " + scheme + "://host[:port] alone, got '" + url + "'");
        }
        return scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
    }

    int size() {
        return bases.size();
    }

    /** The index of the node a new request starts at. */
    int first() {
        return Math.floorMod(next.getAndIncrement(), bases.size());
    }

    /** The base URL of node {@code i}, counted from any index (wraps around). */
    String base(int i) {
        return bases.get(Math.floorMod(i, bases.size()));
    }

    List<String> all() {
        return bases;
    }
}
