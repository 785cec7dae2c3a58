package dht.ycsb;

import dht.client.DhtClient;
import dht.client.DhtException;
import dht.client.Entry;
import dht.client.ReadOptions;
import dht.client.ScanOptions;
import dht.client.WriteOptions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for dht over its Java client ({@code -db dht.ycsb.DhtBinding}).
 *
 * <p>A record is one dht value, its fields encoded by {@link FieldCodec}. insert is a PUT; update
 * is a GET, the changed fields merged in, and a PUT (not atomic: two updates of one record at
 * once may lose one's fields); read is a GET, fields filtered here; delete is a DELETE; scan
 * asks {@code /v0/entities} for the first {@code recordcount} entries from the start key
 * ({@code limit}) and reads the answer to its end: the node (and in a cluster each peer) sends no
 * more than that, and a scan cut short is an error rather than a short result. The table name is
 * ignored: every table shares dht's one key space.
 *
 * <p>Properties: {@code dht.nodes}, comma-separated node URLs (default http://localhost:8080);
 * {@code dht.ack} and {@code dht.from}, sent on every request when set (otherwise the node's
 * defaults); {@code dht.timeout.ms}, the request timeout (default 5000). YCSB makes one
 * instance per thread; they share one
 * client (one connection pool), built from the first instance's properties.
 */
public final class DhtBinding extends DB {
    private static final Logger log = LoggerFactory.getLogger(DhtBinding.class);
    private static final Object LOCK = new Object();
    private static DhtClient shared;
    private static int users;

    private DhtClient client;
    private ReadOptions readOptions = ReadOptions.defaults();
    private WriteOptions writeOptions = WriteOptions.defaults();

    @Override
    public void init() throws DBException {
        Properties p = getProperties();
        String ack = p.getProperty("dht.ack");
        String from = p.getProperty("dht.from");
        try {
            if (ack != null) {
                readOptions = readOptions.ack(Integer.parseInt(ack));
                writeOptions = writeOptions.ack(Integer.parseInt(ack));
            }
            if (from != null) {
                readOptions = readOptions.from(Integer.parseInt(from));
                writeOptions = writeOptions.from(Integer.parseInt(from));
            }
            client = acquire(p);
        } catch (RuntimeException e) {
            throw new DBException("dht binding: bad settings: " + e.getMessage(), e);
        }
    }

    private static DhtClient acquire(Properties p) {
        synchronized (LOCK) {
            if (shared == null) {
                String[] urls = p.getProperty("dht.nodes", "http://localhost:8080").split(",");
                long timeoutMs = Long.parseLong(p.getProperty("dht.timeout.ms", "5000"));
                shared = DhtClient.builder()
                        .nodes(urls)
                        .requestTimeout(Duration.ofMillis(timeoutMs))
                        .build();
            }
            users++;
            return shared;
        }
    }

    @Override
    public void cleanup() {
        synchronized (LOCK) {
            if (client != null && --users == 0) {
                shared.close();
                shared = null;
            }
            client = null;
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            Optional<byte[]> value = client.get(utf8(key), readOptions);
            if (value.isEmpty()) return Status.NOT_FOUND;
            result.putAll(FieldCodec.decode(value.get(), fields));
            return Status.OK;
        } catch (DhtException | IllegalArgumentException e) {
            return failed("read", key, e);
        }
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        if (recordcount < 1) return Status.OK; // nothing asked for: the node refuses limit=0
        try (Stream<Entry> entries = client.scan(utf8(startkey), null, ScanOptions.defaults().limit(recordcount))) {
            Iterator<Entry> it = entries.iterator();
            while (it.hasNext()) {
                result.add(new HashMap<>(FieldCodec.decode(it.next().value(), fields)));
            }
            return Status.OK;
        } catch (DhtException | IllegalArgumentException e) {
            return failed("scan", startkey, e);
        }
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        try {
            Optional<byte[]> current = client.get(utf8(key), readOptions);
            if (current.isEmpty()) return Status.NOT_FOUND;
            client.put(utf8(key), FieldCodec.merge(current.get(), values), writeOptions);
            return Status.OK;
        } catch (DhtException | IllegalArgumentException e) {
            return failed("update", key, e);
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        try {
            client.put(utf8(key), FieldCodec.encode(values), writeOptions);
            return Status.OK;
        } catch (DhtException | IllegalArgumentException e) {
            return failed("insert", key, e);
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            client.delete(utf8(key), writeOptions);
            return Status.OK;
        } catch (DhtException | IllegalArgumentException e) {
            return failed("delete", key, e);
        }
    }

    private static Status failed(String op, String key, RuntimeException e) {
        log.warn("{} {} failed: {}", op, key, e.toString());
        return Status.ERROR;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
