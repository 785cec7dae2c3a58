package dht.cli;

import dht.client.DhtClient;
import dht.client.DhtException;
import dht.client.DhtTimeoutException;
import java.io.IOException;
import java.net.ConnectException;
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
 * What every client command shares: which node to ask and the timeout. The commands on the public
 * API (get, put, delete, scan) talk to the node through the {@code client} library's
 * {@link DhtClient} ({@link #client()}); {@link #send} is the raw request left for what that
 * library has no business offering (repair's {@code repair=all} and the status it reads).
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
    // answer (the client's request timeout); a scan's goes on, and it waits at most this long for
    // its head and then between bytes (the client's read timeout on a scan's connection).
    @Option(names = "--timeout", defaultValue = "10", paramLabel = "SECONDS",
            description = "Give up when the node has sent nothing for this many seconds (default: ${DEFAULT-VALUE}).")
    void timeout(int seconds) {
        if (seconds < 1) throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--timeout must be at least 1 second");
        timeoutSeconds = seconds;
    }

    /** For {@link #send} alone, made on its first use: the commands on the public API use {@link #client()}. */
    private HttpClient http;

    /** {@code key}'s bytes; an empty key is bad usage like any other bad value, not a request the node can only answer 400 (exit 1). */
    byte[] key(String key) {
        if (key.isEmpty()) throw new picocli.CommandLine.ParameterException(spec.commandLine(), "KEY must not be empty");
        return utf8(spec, "KEY", key);
    }

    /**
     * An argument's UTF-8 bytes. The JVM decodes arguments by the locale's encoding and turns bytes
     * it cannot decode into U+FFFD, so two different byte strings would name one key: an argument
     * holding U+FFFD is refused (bad usage) rather than sent as bytes nobody typed.
     */
    static byte[] utf8(picocli.CommandLine.Model.CommandSpec spec, String what, String arg) {
        if (arg.indexOf('\uFFFD') >= 0) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), what + " holds bytes that are not "
                    + "valid in this terminal's encoding (" + System.getProperty("sun.jnu.encoding") + "), or U+FFFD: "
                    + "they cannot be sent as given; use the HTTP API with percent-encoding (id=%FF)");
        }
        return arg.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A client of the {@code --url} node alone: its answer waits {@code --timeout}, a connection
     * 5 s, and a 503 is sent again as the library's default retry policy says. Close it.
     */
    DhtClient client() {
        return DhtClient.builder().nodes(base()).connectTimeout(Duration.ofSeconds(5))
                .requestTimeout(Duration.ofSeconds(timeoutSeconds)).build();
    }

    /**
     * The exit status for a failure of the client, said as the commands have always said it: an
     * answer as its status and the node's reason on stderr (exit 1); no connection, or no answer in
     * time, as the one-line {@link NodeUnreachableException} and {@link NodeTimeoutException}
     * ({@link Main} prints them); anything else as it is.
     *
     * @param changes whether the request may change something (a PUT or DELETE), not only ask
     */
    int failed(DhtException e, boolean changes) throws IOException {
        if (e instanceof dht.client.NodeUnreachableException) throw new NodeUnreachableException(base(), e.getCause());
        if (e instanceof DhtTimeoutException) throw new NodeTimeoutException(base(), timeoutSeconds, changes, e);
        if (e.status() == 0) throw e;
        System.err.println(e.status() + (e.reason().isBlank() ? "" : " " + e.reason().strip()));
        return 1;
    }

    /** {@code --url} spelt as a node's ({@link dht.client.NodeUrl}); a usage error unless it looks like http://host[:port]. */
    String base() {
        String u;
        try {
            u = dht.client.NodeUrl.normalise(url);
        } catch (dht.client.NodeUrl.RefusedException e) {
            // a port of 0 or past 65535 would otherwise fail at the request, as a node that cannot be reached
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    e.flaw() == dht.client.NodeUrl.Flaw.PORT_OUT_OF_RANGE ? "the port of --url must be 1..65535, got '" + url + "'"
                            : "--url must look like http://host:port, got '" + url + "'");
        }
        if (!u.startsWith("http://")) {
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
            if (http == null) http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            return http.send(timed, handler);
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

}
