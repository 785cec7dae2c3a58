package dht.client;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
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
        for (String url : urls) distinct.add(NodeUrl.normalise(url));
        this.bases = List.copyOf(new ArrayList<>(distinct));
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
