package dht.ycsb;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for Redis over Jedis ({@code -db dht.ycsb.RedisBinding}), the yardstick beside dht.
 *
 * <p>A record is a Redis hash (HSET, HGETALL, HMGET for chosen fields). Scans need keys in order,
 * which Redis keeps only in a sorted set: every key is also a member of {@link #INDEX}, all with
 * score 0 so that members sort by their bytes, as dht's keys do; a scan is ZRANGEBYLEX from the
 * start key, LIMIT recordcount, then one HGETALL/HMGET per key, pipelined. insert and delete
 * send their two commands in one MULTI/EXEC, so the index never names a missing record.
 *
 * <p>Properties: {@code redis.host} (default localhost), {@code redis.port} (default 6379),
 * {@code redis.timeout.ms} (default 5000). One connection per YCSB thread.
 */
public final class RedisBinding extends DB {
    /** The sorted set that indexes every record's key, for scans. */
    public static final String INDEX = "_ycsb_keys";

    private static final Logger log = LoggerFactory.getLogger(RedisBinding.class);
    private static final byte[] INDEX_KEY = utf8(INDEX);

    private Jedis jedis;

    @Override
    public void init() throws DBException {
        Properties p = getProperties();
        try {
            String host = p.getProperty("redis.host", "localhost");
            int port = Integer.parseInt(p.getProperty("redis.port", "6379"));
            int timeoutMs = Integer.parseInt(p.getProperty("redis.timeout.ms", "5000"));
            jedis = new Jedis(host, port, timeoutMs);
            jedis.connect();
        } catch (RuntimeException e) {
            throw new DBException("redis binding: cannot connect: " + e.getMessage(), e);
        }
    }

    @Override
    public void cleanup() {
        if (jedis != null) jedis.close();
        jedis = null;
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            if (fields == null) {
                Map<byte[], byte[]> all = jedis.hgetAll(utf8(key));
                if (all.isEmpty()) return Status.NOT_FOUND;
                putAll(all, result);
            } else {
                List<String> names = List.copyOf(fields);
                if (!putFields(names, jedis.hmget(utf8(key), names(names)), result)) return Status.NOT_FOUND;
            }
            return Status.OK;
        } catch (JedisException e) {
            return failed("read", key, e);
        }
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        try {
            List<byte[]> keys = jedis.zrangeByLex(INDEX_KEY, utf8("[" + startkey), utf8("+"), 0, recordcount);
            List<String> names = fields == null ? null : List.copyOf(fields);
            List<Response<Map<byte[], byte[]>>> whole = new ArrayList<>();
            List<Response<List<byte[]>>> some = new ArrayList<>();
            try (Pipeline pipe = jedis.pipelined()) {
                for (byte[] k : keys) {
                    if (names == null) whole.add(pipe.hgetAll(k));
                    else some.add(pipe.hmget(k, names(names)));
                }
                pipe.sync();
            }
            for (int i = 0; i < keys.size(); i++) {
                HashMap<String, ByteIterator> record = new HashMap<>();
                if (names == null) putAll(whole.get(i).get(), record);
                else putFields(names, some.get(i).get(), record);
                result.add(record);
            }
            return Status.OK;
        } catch (JedisException e) {
            return failed("scan", startkey, e);
        }
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        try {
            jedis.hset(utf8(key), hash(values));
            return Status.OK;
        } catch (JedisException e) {
            return failed("update", key, e);
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        byte[] k = utf8(key);
        try (var tx = jedis.multi()) {
            tx.hset(k, hash(values));
            tx.zadd(INDEX_KEY, 0, k);
            tx.exec();
            return Status.OK;
        } catch (JedisException e) {
            return failed("insert", key, e);
        }
    }

    @Override
    public Status delete(String table, String key) {
        byte[] k = utf8(key);
        try (var tx = jedis.multi()) {
            tx.del(k);
            tx.zrem(INDEX_KEY, k);
            tx.exec();
            return Status.OK;
        } catch (JedisException e) {
            return failed("delete", key, e);
        }
    }

    private static Map<byte[], byte[]> hash(Map<String, ByteIterator> values) {
        Map<byte[], byte[]> h = new HashMap<>();
        values.forEach((name, value) -> h.put(utf8(name), value.toArray()));
        return h;
    }

    private static void putAll(Map<byte[], byte[]> hash, Map<String, ByteIterator> into) {
        hash.forEach((name, value) -> into.put(new String(name, StandardCharsets.UTF_8), new ByteArrayByteIterator(value)));
    }

    /** Puts the fields that exist; false when none does (the record is absent). */
    private static boolean putFields(List<String> names, List<byte[]> values, Map<String, ByteIterator> into) {
        boolean any = false;
        for (int i = 0; i < names.size(); i++) {
            byte[] v = values.get(i);
            if (v != null) {
                into.put(names.get(i), new ByteArrayByteIterator(v));
                any = true;
            }
        }
        return any;
    }

    private static byte[][] names(List<String> names) {
        byte[][] b = new byte[names.size()][];
        for (int i = 0; i < b.length; i++) b[i] = utf8(names.get(i));
        return b;
    }

    private static Status failed(String op, String key, JedisException e) {
        log.warn("{} {} failed: {}", op, key, e.toString());
        return Status.ERROR;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
