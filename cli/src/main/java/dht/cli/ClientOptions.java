package dht.cli;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every client command shares: which node to ask, the timeout and one HTTP client.
 * {@code --ack} and {@code --from} are the key commands' own ({@link ReplicaCountOptions}), and a
 * scan has an {@code --ack} of its own meaning.
 */
final class ClientOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    // Short enough for one line of the usage's description column: picocli may wrap after "http:",
    // which split the default URL in two.
    @Option(names = "--url", defaultValue = "http://localhost:8080",
            description = "Node to ask (default: ${DEFAULT-VALUE}).")
    String url;

    int timeoutSeconds;

    // Worded for both kinds of command: a key command's answer comes at once, so its wait is for the
    // answer (the JDK client's request timeout); a scan's goes on, and it waits at most this long for
    // its head and then between bytes (ChunkedGet).
    @Option(names = "--timeout", defaultValue = "10", paramLabel = "SECONDS",
            description = "Give up when the node has sent nothing for this many seconds (default: ${DEFAULT-VALUE}).")
    void timeout(int seconds) {
        if (seconds < 1) throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--timeout must be at least 1 second");
        timeoutSeconds = seconds;
    }

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    URI entityUri(String key, ReplicaCountOptions replicas) {
        // bad usage like any other bad value, not a request the node can only answer 400 (exit 1)
        if (key.isEmpty()) throw new picocli.CommandLine.ParameterException(spec.commandLine(), "KEY must not be empty");
        StringBuilder q = new StringBuilder(base()).append("/v0/entity?id=").append(encode(key));
        if (replicas.ack != null) q.append("&ack=").append(replicas.ack);
        if (replicas.from != null) q.append("&from=").append(replicas.from);
        return URI.create(q.toString());
    }

    /** {@code --url} without trailing slashes; a usage error unless it looks like http://host[:port]. */
    String base() {
        String u = url.strip();
        while (u.endsWith("/")) u = u.substring(0, u.length() - 1);
        URI parsed;
        try {
            parsed = new URI(u);
        } catch (java.net.URISyntaxException e) {
            parsed = null;
        }
        if (parsed == null || !"http".equals(parsed.getScheme()) || parsed.getHost() == null
                || (parsed.getRawPath() != null && !parsed.getRawPath().isEmpty()) || parsed.getRawQuery() != null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--url must look like http://host:port, got '" + url + "'");
        }
        return u;
    }

    static String encode(String s) {
        return encode(s.getBytes(StandardCharsets.UTF_8));
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /**
     * A key's exact bytes for a query: percent-encoded, except letters, digits and the characters a
     * query may hold as they are ({@code - . _ ~ / : @ ! * , ; $}), so that a long key of slashes
     * does not triple in length. {@code + & = % #} and the rest are always encoded ({@code +}
     * decodes to a space).
     */
    static String encode(byte[] key) {
        StringBuilder b = new StringBuilder(key.length + 16);
        for (byte x : key) {
            int c = x & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~/:@!*,;$".indexOf(c) >= 0) {
                b.append((char) c);
            } else {
                b.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        return b.toString();
    }

    /**
     * Sends the request; {@link NodeUnreachableException} when no connection could be made, so
     * that failing before the node was reached is told apart from failing while talking to it.
     */
    <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException {
        // A frozen node's kernel still accepts the connection, so only a timeout ends the wait.
        HttpRequest timed = HttpRequest.newBuilder(request, (name, value) -> true)
                .timeout(Duration.ofSeconds(timeoutSeconds)).build();
        try {
            return client.send(timed, handler);
        } catch (IOException e) {
            throw classified(e, changes(request));
        }
    }

    /**
     * A failure of the JDK client as the user should hear of it: no connection could be made
     * ({@link NodeUnreachableException}), or the node did not answer in time
     * ({@link NodeTimeoutException}); anything else as it is.
     */
    private IOException classified(IOException e, boolean changes) {
        // a connect timeout is also an HttpTimeoutException: it is the node being unreachable
        if (e instanceof ConnectException || e instanceof HttpConnectTimeoutException || e instanceof UnknownHostException) {
            return new NodeUnreachableException(base(), e);
        }
        if (e instanceof HttpTimeoutException) return new NodeTimeoutException(base(), timeoutSeconds, changes, e);
        return e;
    }

    /** Whether the request may change something (a PUT or DELETE), not only ask. */
    private static boolean changes(HttpRequest request) {
        String m = request.method();
        return !(m.equals("GET") || m.equals("HEAD"));
    }

    /** Exit status for an HTTP status: 0 for 2xx, 1 otherwise (the body explains). */
    static int exitCode(int status) {
        return status / 100 == 2 ? 0 : 1;
    }
}
