package dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dht.node.cluster.Answer;
import dht.node.cluster.ClusterScanner;
import dht.node.cluster.Coordinator;
import dht.node.cluster.Quorum;
import dht.testkit.FuzzDeadline;
import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.Store;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;

/**
 * Fuzzes the parsing of query strings as the routes do it: any request target (the query's bytes
 * as the HTTP decoder hands them over, one char each) for {@code /v0/entity} (GET, PUT, DELETE:
 * {@code id}, {@code ack}, {@code from}, {@code ttl}, {@code repair}) or {@code /v0/entities}
 * ({@code start}, {@code end}, {@code scope}, {@code ack}, {@code from}, {@code limit}), without the spaces and
 * control characters a request line cannot carry, goes through the real
 * {@link Router}, {@link EntityRoute} and {@link ScanRoute} ({@link QueryParams},
 * {@link QuorumParams}) to a recording coordinator, scanner and store. The answer must be the one
 * the contract (docs/api.md) gives, as {@link #expected} reads it independently: a 400 exactly
 * when some parameter the route reads is malformed, missing, repeated or out of range, and then
 * nothing was called; otherwise exactly one call, with exactly the key, range, quorum and ttl the
 * target says. Never another status, an exception or an endless loop. The seed corpus
 * ({@code QueryFuzzTestInputs}) holds well-formed and malformed queries ({@link HttpFuzzSeeds}).
 * See docs/fuzzing.md.
 */
class QueryFuzzTest {
    static final int CLUSTER = 3;
    static final String EMPTY_RANGE = "an empty range: answered with no call";

    /** The first byte picks the route and method; the rest is the query. */
    @FuzzTest(maxDuration = "10s")
    void answersAsTheContractSays(byte[] data) throws Exception {
        if (data.length == 0) return;
        FuzzDeadline.run(FuzzDeadline.FIRST_LOADING_NETTY_SECONDS, () -> {
            int pick = (data[0] & 0xFF) % 4;
            HttpMethod method = pick == 1 ? HttpMethod.PUT : pick == 2 ? HttpMethod.DELETE : HttpMethod.GET;
            String path = pick == 3 ? "/v0/entities" : "/v0/entity";
            String query = new String(data, 1, data.length - 1, StandardCharsets.ISO_8859_1);
            // A request line cannot carry these (HttpRequestFuzzTest sends them on the wire)
            for (int i = 0; i < query.length(); i++) if (query.charAt(i) <= ' ' || query.charAt(i) == 0x7F) return;
            List<String> calls = new ArrayList<>();
            int status = route(method, path + "?" + query, calls);
            String want = expected(method, path, query);
            if (want.startsWith("400")) {
                assertThat(status).as("status for %s %s (expected %s)", method, query, want).isEqualTo(400);
                assertThat(calls).as("calls on a 400").isEmpty();
            } else {
                // the recording coordinator answers GET not found, PUT stored, DELETE deleted
                assertThat(status).as("status for %s %s (expected %s)", method, query, want).isIn(200, 201, 202, 404);
                if (want.equals(EMPTY_RANGE)) assertThat(calls).as("calls for an empty range").isEmpty();
                else assertThat(calls).as("calls for %s %s", method, query).containsExactly(want);
            }
        });
    }

    /** Routes one request through the real router; returns the answer's status, records the calls made. */
    static int route(HttpMethod method, String uri, List<String> calls) {
        Admission admission = new Admission(64, 4, 1 << 20);
        Coordinator coordinator = new Coordinator() {
            @Override
            public CompletableFuture<Answer> get(byte[] key, Quorum quorum) {
                calls.add("get " + hex(key) + " " + quorum.ack() + "/" + quorum.from());
                return CompletableFuture.completedFuture(Answer.NOT_FOUND);
            }

            @Override
            public CompletableFuture<Answer> put(byte[] key, byte[] value, Quorum quorum) {
                throw new AssertionError("the route calls the put with a ttl");
            }

            @Override
            public CompletableFuture<Answer> put(byte[] key, ByteBuf value, Quorum quorum, long ttlSeconds) {
                calls.add("put " + hex(key) + " " + quorum.ack() + "/" + quorum.from() + " ttl " + ttlSeconds);
                return CompletableFuture.completedFuture(Answer.STORED);
            }

            @Override
            public CompletableFuture<Answer> delete(byte[] key, Quorum quorum) {
                calls.add("delete " + hex(key) + " " + quorum.ack() + "/" + quorum.from());
                return CompletableFuture.completedFuture(Answer.DELETED);
            }

            @Override
            public CompletableFuture<dht.node.cluster.RepairAnswer> repair(byte[] key, Quorum quorum) {
                calls.add("repair " + hex(key) + " " + quorum.ack() + "/" + quorum.from());
                return CompletableFuture.completedFuture(new dht.node.cluster.RepairAnswer(Answer.NOT_FOUND, 0, 0, 0));
            }

            @Override
            public void close() {}
        };
        ClusterScanner scanner = new ClusterScanner() {
            @Override
            public CloseableIterator<Entry> scan(byte[] start, byte[] end, int ack) {
                throw new AssertionError("the route passes the scan's limit");
            }

            @Override
            public CloseableIterator<Entry> scan(byte[] start, byte[] end, int ack, int limit) {
                calls.add("cluster scan " + hex(start) + " " + (end == null ? "-" : hex(end)) + " ack " + ack
                        + " limit " + limit);
                return nothing();
            }
        };
        Store store = (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class}, (p, m, args) -> {
            if (!m.getName().equals("scan")) throw new AssertionError("the route called store." + m.getName());
            byte[] end = (byte[]) args[1];
            calls.add("local scan " + hex((byte[]) args[0]) + " " + (end == null ? "-" : hex(end)));
            return nothing();
        });
        Router router = new Router(Map.of("/v0/entity", new EntityRoute(coordinator, CLUSTER, admission),
                "/v0/entities", ScanRoute.publicScan(store, scanner, CLUSTER, admission, Runnable::run)));
        EmbeddedChannel ch = new EmbeddedChannel(new ResponseSequencer(router, admission));
        ch.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri,
                Unpooled.copiedBuffer("value", StandardCharsets.US_ASCII)));
        ch.runPendingTasks();
        int status = -1;
        Object o;
        while ((o = ch.readOutbound()) != null) {
            if (o instanceof HttpResponse r) {
                assertThat(status).as("one answer").isEqualTo(-1);
                status = r.status().code();
            }
            ReferenceCountUtil.release(o);
        }
        ch.finishAndReleaseAll();
        return status;
    }

    private static CloseableIterator<Entry> nothing() {
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return false;
            }

            @Override
            public Entry next() {
                throw new NoSuchElementException();
            }

            @Override
            public void close() {}
        };
    }

    static String hex(byte[] b) {
        return b.length == 0 ? "(empty)" : ByteBufUtil.hexDump(b);
    }

    /**
     * The contract's answer, read from the query independently of the node's code: "400 ..." with
     * the reason, or the one call the route must make.
     */
    static String expected(HttpMethod method, String path, String query) {
        if (query.indexOf('#') >= 0) return "400 '#' in the request target"; // a fragment is never sent
        Map<String, List<byte[]>> params = new HashMap<>();
        for (String piece : query.split("&", -1)) {
            if (piece.isEmpty()) continue;
            int eq = piece.indexOf('=');
            byte[] name = decode(eq < 0 ? piece : piece.substring(0, eq));
            byte[] value = decode(eq < 0 ? "" : piece.substring(eq + 1));
            if (name == null || value == null) return "400 malformed percent-encoding";
            params.computeIfAbsent(new String(name, StandardCharsets.UTF_8), k -> new ArrayList<>()).add(value);
        }
        for (String read : path.equals("/v0/entity") ? List.of("id", "repair", "ack", "from", "ttl")
                : List.of("start", "end", "scope", "ack", "from", "limit")) {
            if (params.getOrDefault(read, List.of()).size() > 1) return "400 " + read + " repeated";
        }
        Integer from = positive(params, "from");
        Integer ack = positive(params, "ack");
        if (from != null && from == 0 || ack != null && ack == 0) return "400 not a positive integer";
        int f = from == null ? CLUSTER : from;
        if (path.equals("/v0/entities")) {
            byte[] start = one(params, "start");
            if (start == null || start.length == 0) return "400 missing start";
            byte[] end = one(params, "end");
            String scope = string(params, "scope");
            if (scope != null && !scope.equals("local") && !scope.equals("cluster")) return "400 scope";
            int a = ack == null ? CLUSTER / 2 + 1 : ack;
            if (a > CLUSTER || f > CLUSTER) return "400 larger than the cluster";
            if (ack != null && a > f) return "400 ack above from";
            Integer limit = positive(params, "limit");
            if (limit != null && limit == 0) return "400 limit not a positive integer";
            if (end != null && Arrays.compareUnsigned(end, start) <= 0) return EMPTY_RANGE;
            if ("local".equals(scope)) return "local scan " + hex(start) + " " + (end == null ? "-" : hex(end));
            return "cluster scan " + hex(start) + " " + (end == null ? "-" : hex(end)) + " ack " + a
                    + " limit " + (limit == null ? 0 : limit);
        }
        byte[] id = one(params, "id");
        if (id == null || id.length == 0) return "400 missing id";
        String repair = string(params, "repair");
        if (repair != null && (!repair.equals("all") || !method.equals(HttpMethod.GET))) return "400 repair";
        if (f > CLUSTER) return "400 from larger than the cluster";
        int a = ack != null ? ack : repair != null ? f : f / 2 + 1;
        if (a > f) return "400 ack above from";
        byte[] ttl = one(params, "ttl");
        long t = 0;
        if (ttl != null) {
            if (!method.equals(HttpMethod.PUT)) return "400 ttl on " + method;
            // decimal digits (leading zeros allowed) for a number from 1 to the maximum
            for (byte c : ttl) {
                if (c < '0' || c > '9') return "400 ttl";
                t = Math.min(t * 10 + (c - '0'), EntityRoute.MAX_TTL_SECONDS + 1);
            }
            if (ttl.length == 0 || t < 1 || t > EntityRoute.MAX_TTL_SECONDS) return "400 ttl";
        }
        String q = " " + hex(id) + " " + a + "/" + f;
        if (repair != null) return "repair" + q;
        if (method.equals(HttpMethod.GET)) return "get" + q;
        if (method.equals(HttpMethod.PUT)) return "put" + q + " ttl " + t;
        return "delete" + q;
    }

    /** A positive integer parameter: null if absent, 0 if not decimal digits within 1..2^31-1. */
    private static Integer positive(Map<String, List<byte[]>> params, String name) {
        byte[] b = one(params, name);
        if (b == null) return null;
        if (b.length == 0) return 0;
        long v = 0;
        int digits = 0; // leading zeros do not count: the value is what the contract bounds
        for (byte c : b) {
            if (c < '0' || c > '9') return 0;
            if (v > 0 || c != '0') digits++;
            if (digits > 10) return 0;
            v = v * 10 + (c - '0');
        }
        return v < 1 || v > Integer.MAX_VALUE ? 0 : (int) v;
    }

    private static byte[] one(Map<String, List<byte[]>> params, String name) {
        List<byte[]> v = params.get(name);
        return v == null ? null : v.getFirst();
    }

    private static String string(Map<String, List<byte[]>> params, String name) {
        byte[] b = one(params, name);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** RFC 3986 percent-decoding with {@code +} as a space, or null if a {@code %} lacks two hex digits. */
    private static byte[] decode(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length() || hex(s.charAt(i + 1)) < 0 || hex(s.charAt(i + 2)) < 0) return null;
                out.write(hex(s.charAt(i + 1)) << 4 | hex(s.charAt(i + 2)));
                i += 2;
            } else {
                out.write(c == '+' ? ' ' : c);
            }
        }
        return out.toByteArray();
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }
}
