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

/**
 * Membership calls to other nodes over {@code /internal/v0/membership}, signed with the cluster
 * secret when there is one. Blocking (the JDK's HTTP client): changes are rare, and run on a
 * thread of their own. An {@code https://} node is reached over TLS with the given context, which
 * checks its certificate and that it names the URL's host.
 */
public final class MembershipClient implements MembershipTransport {
    private static final Pattern TABLE_BYTES = Pattern.compile("\"tableBytes\":(\\d+)");
    private static final Pattern MEMTABLE_BYTES = Pattern.compile("\"memtableBytes\":(\\d+)");
    private static final Pattern ENTRIES = Pattern.compile("\"entries\":(\\d+)");
    private final HttpClient client;
    private final Duration timeout;
    /** Null: requests go unsigned. */
    private final ClusterSecret secret;

    /** Plain HTTP, or HTTPS checked against the JDK's default trust store. */
    public MembershipClient(Duration timeout, ClusterSecret secret) {
        this(timeout, secret, null);
    }

    /** @param tls the context of {@code https://} calls ({@link CaTrust}); null: the JDK's default */
    public MembershipClient(Duration timeout, ClusterSecret secret, javax.net.ssl.SSLContext tls) {
        this.timeout = timeout;
        this.secret = secret;
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout);
        if (tls != null) b.sslContext(tls);
        this.client = b.build();
    }

    /** The longest refusal reason printed as it is. */
    private static final int MAX_REASON = 1000;

    @Override
    public byte[] call(String node, String op, String params, byte[] body) throws MembershipChangeException {
        String uri = InternalProtocol.MEMBERSHIP_PATH + "?op=" + op + (params.isEmpty() ? "" : "&" + params);
        String method = op.equals("get") ? "GET" : "POST";
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(node + uri)).timeout(timeout)
                .method(method, method.equals("GET") ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        String proof = null;
        if (secret != null) {
            proof = secret.sign(method, uri, method.equals("GET") ? new byte[0] : body, System.currentTimeMillis());
            b.header(ClusterSecret.HEADER, proof);
        }
        HttpResponse<byte[]> r;
        try {
            r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw MembershipChangeException.noAnswer(node + " did not answer (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", neverArrived(e)
                    ? MembershipChangeException.Outcome.NOTHING_CHANGED : MembershipChangeException.Outcome.UNKNOWN);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw MembershipChangeException.noAnswer("interrupted while asking " + node, MembershipChangeException.Outcome.UNKNOWN);
        }
        boolean proven = MemberAnswer.isMembers(secret, proof, r.statusCode(), ClusterSecret.Headers.of(r.headers()),
                r.body(), r.headers().firstValue(ClusterSecret.ANSWER_HEADER).orElse(null));
        if (!proven && !ClusterSecret.mayComeUnproven(r.statusCode())) {
            // Whatever answered does not hold the secret, or is no node: not a member, and what it says is not taken.
            throw MembershipChangeException.noAnswer(node + " answered " + r.statusCode() + " " + MemberAnswer.lacking(secret),
                    MembershipChangeException.Outcome.UNKNOWN);
        }
        if (r.statusCode() == 200) return r.body();
        // A refusal without its proof is taken by its status alone: its covered headers prove nothing.
        throw new MembershipChangeException(r.statusCode(), reason(node, r), outcome(r, proven));
    }

    /**
     * What a refusal left: under way when the node says so; nothing changed for the refusals a node
     * makes (4xx, its 503); unknown for any other failure (a 500, a proxy's 502 or 504), which
     * may come after the change was made.
     */
    static MembershipChangeException.Outcome outcome(HttpResponse<?> r, boolean proven) {
        if (proven && r.headers().firstValue(InternalProtocol.CHANGE).orElse("").equals(InternalProtocol.CHANGE_UNDER_WAY)) {
            return MembershipChangeException.Outcome.UNDER_WAY;
        }
        int s = r.statusCode();
        return s < 500 || s == 503 ? MembershipChangeException.Outcome.NOTHING_CHANGED : MembershipChangeException.Outcome.UNKNOWN;
    }

    /** No connection, or none the client trusted: the node never read the request. */
    private static boolean neverArrived(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.ConnectException || t instanceof javax.net.ssl.SSLHandshakeException) return true;
        }
        return false;
    }

    /**
     * A refusal's reason: a dht node says it in one short line of plain text; anything else (a web
     * server's HTML page, a long body) is summed up rather than printed whole.
     */
    static String reason(String node, HttpResponse<byte[]> r) {
        String text = new String(r.body(), StandardCharsets.UTF_8).strip();
        boolean html = r.headers().firstValue("Content-Type").orElse("").contains("html");
        if (!text.isEmpty() && !html && text.length() <= MAX_REASON && text.lines().count() <= 3) return text;
        return node + " answered HTTP " + r.statusCode() + " without a dht reason (is it a dht node?)";
    }

    @Override
    public Stored stored(String node) {
        try {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(node + "/v0/status")).timeout(timeout).build(),
                    HttpResponse.BodyHandlers.ofString());
            // What it holds in its tables and its memtable: a member whose data is not flushed yet holds it too.
            Matcher t = TABLE_BYTES.matcher(r.body());
            Matcher mem = MEMTABLE_BYTES.matcher(r.body());
            Matcher entries = ENTRIES.matcher(r.body());
            if (r.statusCode() != 200 || !t.find()) return Stored.UNKNOWN;
            return new Stored(Long.parseLong(t.group(1)) + (mem.find() ? Long.parseLong(mem.group(1)) : 0),
                    entries.find() ? Long.parseLong(entries.group(1)) : -1);
        } catch (IOException e) {
            return Stored.UNKNOWN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Stored.UNKNOWN;
        }
    }
}
