package dht.cli;

import java.io.IOException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;

/**
 * The node at {@code --url} could not be connected to, so no request reached it. Kept apart from
 * other I/O failures because it is the user's setup, not a bug: {@link Main} reports it in one line.
 */
final class NodeUnreachableException extends IOException {
    private final String url;
    private final String reason;

    NodeUnreachableException(String url, Throwable cause) {
        super(null, cause);
        this.url = url;
        this.reason = reason(cause);
    }

    String url() {
        return url;
    }

    String reason() {
        return reason;
    }

    @Override
    public String getMessage() {
        return "cannot reach node " + url + " (" + reason + ")";
    }

    private static String reason(Throwable e) {
        // The JDK client nests the real cause a few levels deep, and a timeout also carries a
        // ConnectException, so the specific kinds are looked for along the whole chain first.
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof HttpConnectTimeoutException) return "connect timed out";
            if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) return "unknown host";
        }
        // A refused connection comes without any message; when the OS did say something
        // (no route to host, network unreachable), that is more useful than a guess.
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && !m.isBlank()) return m.strip().toLowerCase(Locale.ROOT);
        }
        return "connection refused";
    }
}
