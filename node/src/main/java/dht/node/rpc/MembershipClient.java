package dht.node.rpc;

import dht.node.cluster.MembershipChangeException;
import dht.node.cluster.MembershipTransport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * Membership calls to other nodes over {@code /internal/v0/membership}, signed with the cluster
 * secret when there is one. Blocking (the JDK's HTTP client): changes are rare, and run on a
 * thread of their own. Over HTTPS the peer's certificate is checked against the node's CA; the
 * client keeps its connections, so the periodic sync does not handshake each time.
 */
public final class MembershipClient implements MembershipTransport {
    private static final Pattern TABLE_BYTES = Pattern.compile("\"tableBytes\":(\\d+)");
    private final HttpClient client;
    private final Duration timeout;
    /** Null: requests go unsigned. */
    private final ClusterSecret secret;

    public MembershipClient(Duration timeout, ClusterSecret secret) {
        this(timeout, secret, null);
    }

    /** @param tls the trust of {@code https://} calls, or null for the JDK's default */
    public MembershipClient(Duration timeout, ClusterSecret secret, SSLContext tls) {
        this.timeout = timeout;
        this.secret = secret;
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout);
        if (tls != null) b.sslContext(tls);
        this.client = b.build();
    }

    @Override
    public byte[] call(String node, String op, String params, byte[] body) throws MembershipChangeException {
        String uri = InternalProtocol.MEMBERSHIP_PATH + "?op=" + op + (params.isEmpty() ? "" : "&" + params);
        String method = op.equals("get") ? "GET" : "POST";
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(node + uri)).timeout(timeout)
                .method(method, method.equals("GET") ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        if (secret != null) b.header(ClusterSecret.HEADER, secret.sign(method, uri, method.equals("GET") ? new byte[0] : body,
                System.currentTimeMillis()));
        HttpResponse<byte[]> r;
        try {
            r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new MembershipChangeException(503, node + " did not answer (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MembershipChangeException(503, "interrupted while asking " + node);
        }
        if (r.statusCode() == 200) return r.body();
        String reason = new String(r.body(), StandardCharsets.UTF_8).strip();
        throw new MembershipChangeException(r.statusCode(), reason.isEmpty() ? node + " answered " + r.statusCode() : reason);
    }

    @Override
    public long storedBytes(String node) {
        try {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(node + "/v0/status")).timeout(timeout).build(),
                    HttpResponse.BodyHandlers.ofString());
            Matcher m = TABLE_BYTES.matcher(r.body());
            return r.statusCode() == 200 && m.find() ? Long.parseLong(m.group(1)) : -1;
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
