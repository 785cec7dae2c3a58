package dht.cli;

import java.net.URI;

/** The port check that every node URL the command line takes passes: a node's own and a client's. */
final class UrlPort {
    private UrlPort() {
    }

    /** Whether {@code url} names a port outside 1..65535: 0, past 65535, or a colon with no digits after it. */
    static boolean outOfRange(URI url) {
        return url.getPort() == 0 || url.getPort() > 65535
                || (url.getPort() == -1 && url.getRawAuthority().matches(".*:[^\\]]*"));
    }
}
