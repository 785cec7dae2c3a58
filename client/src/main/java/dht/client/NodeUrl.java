package dht.client;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * A node's base URL, spelt one way by every tool that takes one: {@code http[s]://host[:port]},
 * in lower case (scheme and host are case-insensitive), with no trailing slash, and nothing else
 * (no user, path, query or fragment). Nodes compare each other's URLs as strings and hash them
 * for placement, so two spellings of one node must come out the same; and a URL that names no
 * node is refused where it is given, not found out later as a peer that never answers.
 */
public final class NodeUrl {
    private NodeUrl() {
    }

    /** Why a URL is not a node's. */
    public enum Flaw {
        /** Not {@code http[s]://host[:port]}. */
        NOT_A_NODE_URL,
        /** A port of 0, past 65535, or a colon with no digits after it. */
        PORT_OUT_OF_RANGE
    }

    /** A URL that names no node, and why. */
    public static final class RefusedException extends IllegalArgumentException {
        private final Flaw flaw;

        RefusedException(Flaw flaw, String url) {
            super(flaw == Flaw.PORT_OUT_OF_RANGE ? "the port of a node URL must be 1..65535, got '" + url + "'"
                    : "a node URL is http[s]://host[:port] alone, got '" + url + "'");
            this.flaw = flaw;
        }

        public Flaw flaw() {
            return flaw;
        }
    }

    /** {@code url} spelt as every node spells it; refused unless it is {@code http[s]://host[:port]}. */
    public static String normalise(String url) {
        String u = url.strip();
        while (u.endsWith("/")) u = u.substring(0, u.length() - 1);
        URI parsed;
        try {
            parsed = new URI(u);
        } catch (URISyntaxException e) {
            throw new RefusedException(Flaw.NOT_A_NODE_URL, url);
        }
        String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || parsed.getHost() == null
                || parsed.getRawUserInfo() != null || parsed.getRawQuery() != null || parsed.getRawFragment() != null
                || parsed.getRawPath() == null || !parsed.getRawPath().isEmpty()) {
            throw new RefusedException(Flaw.NOT_A_NODE_URL, url);
        }
        if (parsed.getPort() == 0 || parsed.getPort() > 65535
                || parsed.getPort() == -1 && parsed.getRawAuthority().matches(".*:[^\\]]*")) {
            throw new RefusedException(Flaw.PORT_OUT_OF_RANGE, url);
        }
        return u.toLowerCase(Locale.ROOT);
    }
}
