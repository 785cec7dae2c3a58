package dht.client;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;

/**
 * A client of dht's HTTP API (version 0). Thread-safe; create one per application and share it:
 * it holds a pool of connections. Close it when done.
 *
 * <pre>{@code
 * try (DhtClient client = DhtClient.builder().nodes("http://localhost:8080").build()) {
 *     client.put("greeting", "hello");
 *     Optional<String> v = client.getString("greeting");   // Optional[hello]
 *     client.delete("greeting");
 * }
 * }</pre>
 *
 * <p>Every operation has a blocking form and an {@code ...Async} form returning a
 * {@link CompletableFuture} (completed on the client's threads; chain blocking work with the
 * {@code ...Async} methods of the future and an executor of your own).
 *
 * <p>Keys are non-empty byte strings (compared by the node as unsigned bytes), values any bytes;
 * the {@code String} forms encode both as UTF-8. Failures are {@link DhtException}s, one subclass
 * per kind of failure.
 */
public final class DhtClient implements AutoCloseable {
    private final HttpClient http;
    private final Nodes nodes;
    private final Settings settings;
    private final Requester requester;

    private DhtClient(Builder b) {
        this.nodes = new Nodes(b.urls);
        this.settings = new Settings(b.connectTimeout, b.requestTimeout, b.sslContext, b.retryPolicy);
        HttpClient.Builder hb = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(b.connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER);
        if (b.sslContext != null) hb.sslContext(b.sslContext);
        this.http = hb.build();
        this.requester = new Requester(http, nodes, settings);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A client of the node(s) at {@code urls}, every other setting at its default. */
    public static DhtClient create(String... urls) {
        return builder().nodes(urls).build();
    }

    // ---- PUT

    /** Stores {@code value} under {@code key}, replicated as the node's defaults say. */
    public void put(byte[] key, byte[] value) {
        put(key, value, WriteOptions.defaults());
    }

    public void put(byte[] key, byte[] value, WriteOptions options) {
        await(putAsync(key, value, options));
    }

    public void put(String key, String value) {
        put(utf8(key), utf8(value));
    }

    public void put(String key, String value, WriteOptions options) {
        put(utf8(key), utf8(value), options);
    }

    /**
     * {@link #put(byte[], byte[], WriteOptions)} without blocking: the future completes when the
     * node has answered, or exceptionally with the {@link DhtException} the blocking form throws.
     */
    public CompletableFuture<Void> putAsync(byte[] key, byte[] value, WriteOptions options) {
        Objects.requireNonNull(value, "value");
        Query q = new Query("/v0/entity").bytes("id", Checks.key(key));
        options.appendTo(q, true);
        return requester.send("PUT", q.toString(), value, (node, answer) -> expect(201, node, answer));
    }

    public CompletableFuture<Void> putAsync(byte[] key, byte[] value) {
        return putAsync(key, value, WriteOptions.defaults());
    }

    public CompletableFuture<Void> putAsync(String key, String value) {
        return putAsync(utf8(key), utf8(value), WriteOptions.defaults());
    }

    public CompletableFuture<Void> putAsync(String key, String value, WriteOptions options) {
        return putAsync(utf8(key), utf8(value), options);
    }

    // ---- GET

    /** The value stored under {@code key}, or empty when it is absent or deleted (404). */
    public Optional<byte[]> get(byte[] key) {
        return get(key, ReadOptions.defaults());
    }

    public Optional<byte[]> get(byte[] key, ReadOptions options) {
        return await(getAsync(key, options));
    }

    /** {@link #get(byte[])} of a UTF-8 key, the value decoded as UTF-8. */
    public Optional<String> getString(String key) {
        return getString(key, ReadOptions.defaults());
    }

    public Optional<String> getString(String key, ReadOptions options) {
        return get(utf8(key), options).map(DhtClient::text);
    }

    public CompletableFuture<Optional<byte[]>> getAsync(byte[] key) {
        return getAsync(key, ReadOptions.defaults());
    }

    public CompletableFuture<Optional<String>> getStringAsync(String key) {
        return getStringAsync(key, ReadOptions.defaults());
    }

    public CompletableFuture<Optional<String>> getStringAsync(String key, ReadOptions options) {
        return getAsync(utf8(key), options).thenApply(v -> v.map(DhtClient::text));
    }

    /** {@link #get(byte[], ReadOptions)} without blocking. */
    public CompletableFuture<Optional<byte[]>> getAsync(byte[] key, ReadOptions options) {
        Query q = new Query("/v0/entity").bytes("id", Checks.key(key));
        options.appendTo(q);
        return requester.send("GET", q.toString(), null, (node, answer) -> switch (answer.statusCode()) {
            case 200 -> Optional.of(answer.body());
            case 404 -> Optional.empty();
            default -> throw Requester.unexpected(node, answer);
        });
    }

    // ---- DELETE

    /** Deletes {@code key} (a tombstone; deleting an absent key succeeds too). */
    public void delete(byte[] key) {
        delete(key, WriteOptions.defaults());
    }

    /** Deletes {@code key}; the options' {@code ttl}, if any, is not sent. */
    public void delete(byte[] key, WriteOptions options) {
        await(deleteAsync(key, options));
    }

    public void delete(String key) {
        delete(utf8(key));
    }

    public void delete(String key, WriteOptions options) {
        delete(utf8(key), options);
    }

    public CompletableFuture<Void> deleteAsync(byte[] key) {
        return deleteAsync(key, WriteOptions.defaults());
    }

    public CompletableFuture<Void> deleteAsync(String key) {
        return deleteAsync(utf8(key), WriteOptions.defaults());
    }

    public CompletableFuture<Void> deleteAsync(String key, WriteOptions options) {
        return deleteAsync(utf8(key), options);
    }

    /** {@link #delete(byte[], WriteOptions)} without blocking. */
    public CompletableFuture<Void> deleteAsync(byte[] key, WriteOptions options) {
        Query q = new Query("/v0/entity").bytes("id", Checks.key(key));
        options.appendTo(q, false);
        return requester.send("DELETE", q.toString(), null, (node, answer) -> expect(202, node, answer));
    }

    // ---- scans

    /**
     * The entries with keys from {@code start} (inclusive) to {@code end} (exclusive; null for no
     * upper bound), in key byte order, streamed from the node as they are consumed. Close the
     * stream (try-with-resources) if you do not read it to its end: it holds a connection.
     *
     * <pre>{@code
     * try (Stream<Entry> entries = client.scan("user:", "user;")) {
     *     entries.forEach(e -> System.out.println(e.keyString()));
     * }
     * }</pre>
     *
     * @throws IncompleteScanException while reading, when the node's answer ends before its end
     */
    public Stream<Entry> scan(byte[] start, byte[] end) {
        return scan(start, end, ScanOptions.defaults());
    }

    public Stream<Entry> scan(byte[] start, byte[] end, ScanOptions options) {
        return scanIterator(start, end, options).stream();
    }

    /** {@link #scan(byte[], byte[])} of UTF-8 keys; {@code end} may be null. */
    public Stream<Entry> scan(String start, String end) {
        return scan(start, end, ScanOptions.defaults());
    }

    public Stream<Entry> scan(String start, String end, ScanOptions options) {
        return scan(utf8(start), end == null ? null : utf8(end), options);
    }

    public ScanIterator scanIterator(String start, String end) {
        return scanIterator(utf8(start), end == null ? null : utf8(end), ScanOptions.defaults());
    }

    /**
     * The scan as a closeable iterator, for callers that would rather not use a stream. The request
     * is sent, and its answer's status checked, before this returns.
     */
    public ScanIterator scanIterator(byte[] start, byte[] end, ScanOptions options) {
        Query q = new Query("/v0/entities").bytes("start", Checks.key(start));
        if (end != null) q.bytes("end", end);
        options.appendTo(q);
        String target = q.toString();
        Attempts attempts = new Attempts(nodes, settings.retryPolicy());
        while (true) {
            try {
                return new ScanIterator(ScanConnection.open(attempts.node(), target, settings));
            } catch (DhtException e) {
                sleep(attempts.next(e));
            }
        }
    }

    /** Closes the connection pool; requests still in flight are finished first. */
    @Override
    public void close() {
        http.close();
    }

    private static Void expect(int status, String node, HttpResponse<byte[]> answer) {
        if (answer.statusCode() != status) throw Requester.unexpected(node, answer);
        return null;
    }

    /** Waits for an asynchronous call, rethrowing its {@link DhtException} as it is. */
    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            Throwable cause = Failures.unwrap(e);
            if (cause instanceof RuntimeException r) throw r;
            if (cause instanceof Error err) throw err;
            throw new DhtException("request failed: " + cause, cause);
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            throw new DhtException("interrupted while waiting for the node's answer", e);
        }
    }

    private static void sleep(Duration d) {
        if (d.isZero()) return;
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DhtException("interrupted while waiting to retry", e);
        }
    }

    static byte[] utf8(String s) {
        return Objects.requireNonNull(s).getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Settings of a {@link DhtClient}; every one has a default but the node URLs. */
    public static final class Builder {
        private final List<String> urls = new ArrayList<>();
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration requestTimeout = Duration.ofSeconds(10);
        private SSLContext sslContext;
        private RetryPolicy retryPolicy = RetryPolicy.defaults();

        private Builder() {
        }

        /**
         * The nodes to talk to, each {@code http://host[:port]} (or https). Any node coordinates any
         * request: requests are spread over them, and one that cannot be reached is skipped.
         */
        public Builder nodes(String... urls) {
            for (String u : urls) this.urls.add(NodeUrl.normalise(u));
            return this;
        }

        public Builder nodes(List<String> urls) {
            return nodes(urls.toArray(String[]::new));
        }

        /** Longest wait for a connection to a node (default 5 s); beyond it the node counts as unreachable. */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive("connectTimeout", timeout);
            return this;
        }

        /**
         * Longest wait for a node's answer once the request is sent (default 10 s), and, during a
         * scan, for each next piece of it.
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive("requestTimeout", timeout);
            return this;
        }

        /** When a request answered 503 is sent again (default {@link RetryPolicy#defaults()}). */
        public Builder retryPolicy(RetryPolicy policy) {
            this.retryPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** The TLS settings for {@code https://} nodes (default: the JVM's default context). */
        public Builder sslContext(SSLContext context) {
            this.sslContext = Objects.requireNonNull(context, "context");
            return this;
        }

        public DhtClient build() {
            if (urls.isEmpty()) throw new IllegalStateException("no node URL given: call nodes(...)");
            if (sslContext == null && urls.stream().anyMatch(u -> u.startsWith("https:"))) {
                try {
                    sslContext = SSLContext.getDefault();
                } catch (java.security.NoSuchAlgorithmException e) {
                    throw new IllegalStateException("no default TLS context for https nodes", e);
                }
            }
            return new DhtClient(this);
        }

        private static Duration positive(String name, Duration d) {
            if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(name + " must be positive, got " + d);
            return d;
        }
    }
}
