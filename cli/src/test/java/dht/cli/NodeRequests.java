package dht.cli;

import dht.client.DhtClient;
import dht.client.DhtException;
import dht.client.Entry;
import dht.client.ReadOptions;
import dht.client.ScanOptions;
import dht.client.WriteOptions;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * What the cluster process tests ask a node through the client library: writes with a quorum, and
 * a node's own data. One client per node URL, kept for the test class's life; {@link #close} them.
 */
final class NodeRequests implements AutoCloseable {
    private final Map<String, DhtClient> clients = new ConcurrentHashMap<>();

    /** The client of node {@code n}, for what the helpers below do not cover. */
    DhtClient of(NodeProcess n) {
        return clients.computeIfAbsent(n.url(), url -> DhtClient.builder().nodes(url)
                .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(30)).build());
    }

    /**
     * A PUT of {@code value}, or a DELETE when it is null, with {@code ack} of {@code from} (0 and 0:
     * the node's defaults); the answer's status code.
     */
    int write(NodeProcess n, String key, String value, int ack, int from) {
        WriteOptions options = ack > 0 ? WriteOptions.defaults().ack(ack).from(from) : WriteOptions.defaults();
        try {
            if (value == null) {
                of(n).delete(key, options);
                return 202;
            }
            of(n).put(key, value, options);
            return 201;
        } catch (DhtException e) {
            if (e.status() == 0) throw e; // no answer: the test cannot go on
            return e.status();
        }
    }

    /**
     * {@link #write}, for the data a test sets up: a write a busy machine timed out (504, a replica
     * silent for the 1 s replica timeout, likeliest at 3/3) is sent again, up to five times in all,
     * as the same write again is harmless (as the cold writes of LeaveWhileDownProcessTest are).
     * The last answer's status code.
     */
    int setUp(NodeProcess n, String key, String value, int ack, int from) {
        int code = 0;
        for (int attempt = 0; attempt < 5 && (attempt == 0 || code == 504); attempt++) code = write(n, key, value, ack, from);
        return code;
    }

    /** A GET with {@code ack} of {@code from} (0 and 0: the node's defaults): the value, "404", or another answer's status ("504"). */
    String get(NodeProcess n, String key, int ack, int from) {
        ReadOptions options = ack > 0 ? ReadOptions.defaults().ack(ack).from(from) : ReadOptions.defaults();
        try {
            return of(n).getString(key, options).orElse("404");
        } catch (DhtException e) {
            if (e.status() == 0) throw e;
            return String.valueOf(e.status());
        }
    }

    /** The node's own data ({@code scope=local}), key to value, read as a stream to its end. */
    Map<String, String> local(NodeProcess n) {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Entry> entries = of(n).scan(new byte[] {0}, null, ScanOptions.defaults().local())) {
            entries.forEach(e -> out.put(e.keyString(), e.valueString()));
        }
        return out;
    }

    @Override
    public void close() {
        clients.values().forEach(DhtClient::close);
    }
}
