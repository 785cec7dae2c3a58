package dht.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Writes the next request of a workload as raw HTTP/1.1 bytes. Encoding by hand keeps the
 * generator's per-request cost to one pooled buffer, so that the client is not what limits the
 * rate. Shared between connections; each connection passes its own seeded random.
 *
 * <ul>
 * <li>put: PUT of a value of {@code valueSize} bytes to a key from the distribution</li>
 * <li>get: GET of a key from the distribution, or with probability {@code missRatio} of a key
 *     outside the key space (absent after a fill of the key space)</li>
 * <li>mixed: get with probability {@code readRatio}, else put</li>
 * <li>delete: DELETE of a key from the distribution</li>
 * <li>range: GET /v0/entities from key i to key i + rangeLength (exclusive)</li>
 * </ul>
 */
public final class RequestFactory {
    private static final byte[] HTTP11 = " HTTP/1.1\r\nHost: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ENTITY = "/v0/entity?id=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ENTITIES = "GET /v0/entities?start=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "&end=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CRLF = "\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONTENT_LENGTH = "Content-Length: ".getBytes(StandardCharsets.US_ASCII);

    private final Workload workload;
    private final KeyDistribution keys;
    private final byte[] value;
    private final double missRatio;
    private final double readRatio;
    private final long rangeLength;
    private final byte[] replicaParams;

    public RequestFactory(Workload workload, KeyDistribution keys, int valueSize, double missRatio,
                          double readRatio, long rangeLength, Integer ack, Integer from, long seed) {
        this.workload = workload;
        this.keys = keys;
        this.value = new byte[valueSize];
        SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
        for (int i = 0; i < valueSize; i++) {
            value[i] = (byte) ('a' + r.nextInt(26));
        }
        this.missRatio = missRatio;
        this.readRatio = readRatio;
        this.rangeLength = rangeLength;
        StringBuilder p = new StringBuilder();
        if (ack != null) {
            p.append("&ack=").append(ack);
        }
        if (from != null) {
            p.append("&from=").append(from);
        }
        this.replicaParams = p.toString().getBytes(StandardCharsets.US_ASCII);
    }

    public Workload workload() {
        return workload;
    }

    /** The share of GETs asked for keys outside the key space (--miss-ratio). */
    public double missRatio() {
        return missRatio;
    }

    /** A new buffer holding one complete request for the given Host header. */
    public ByteBuf next(ByteBufAllocator alloc, byte[] hostHeader, SplittableRandom random) {
        return switch (workload) {
            case put -> put(alloc, hostHeader, keys.next(random));
            case get -> get(alloc, hostHeader, random);
            case mixed -> random.nextDouble() < readRatio ? get(alloc, hostHeader, random)
                    : put(alloc, hostHeader, keys.next(random));
            case delete -> simple(alloc, "DELETE ", hostHeader, keys.next(random));
            case range -> range(alloc, hostHeader, keys.next(random));
        };
    }

    /** PUT of one given key: what {@code bench fill} sends. */
    public ByteBuf put(ByteBufAllocator alloc, byte[] hostHeader, long key) {
        ByteBuf b = alloc.directBuffer(96 + value.length + replicaParams.length);
        b.writeBytes(ascii("PUT "));
        writeEntityLine(b, hostHeader, key);
        b.writeBytes(CONTENT_LENGTH);
        writeDecimal(b, value.length);
        b.writeBytes(CRLF).writeBytes(CRLF).writeBytes(value);
        return b;
    }

    private ByteBuf get(ByteBufAllocator alloc, byte[] hostHeader, SplittableRandom random) {
        long key;
        if (missRatio > 0 && random.nextDouble() < missRatio) {
            key = Math.min(keys.size() + random.nextLong(Math.max(1, keys.size())), Keys.MAX_INDEX);
        } else {
            key = keys.next(random);
        }
        return simple(alloc, "GET ", hostHeader, key);
    }

    private ByteBuf simple(ByteBufAllocator alloc, String method, byte[] hostHeader, long key) {
        ByteBuf b = alloc.directBuffer(96 + replicaParams.length);
        b.writeBytes(ascii(method));
        writeEntityLine(b, hostHeader, key);
        b.writeBytes(CRLF);
        return b;
    }

    private ByteBuf range(ByteBufAllocator alloc, byte[] hostHeader, long start) {
        ByteBuf b = alloc.directBuffer(112);
        b.writeBytes(ENTITIES);
        Keys.write(b, start);
        b.writeBytes(END);
        Keys.write(b, Math.min(start + rangeLength, Keys.MAX_INDEX));
        b.writeBytes(HTTP11).writeBytes(hostHeader).writeBytes(CRLF).writeBytes(CRLF);
        return b;
    }

    private void writeEntityLine(ByteBuf b, byte[] hostHeader, long key) {
        b.writeBytes(ENTITY);
        Keys.write(b, key);
        b.writeBytes(replicaParams);
        b.writeBytes(HTTP11).writeBytes(hostHeader).writeBytes(CRLF);
    }

    private static void writeDecimal(ByteBuf b, int n) {
        b.writeCharSequence(Integer.toString(n), StandardCharsets.US_ASCII);
    }

    private static final byte[] PUT = "PUT ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GET = "GET ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DELETE = "DELETE ".getBytes(StandardCharsets.US_ASCII);

    private static byte[] ascii(String method) {
        return switch (method) {
            case "PUT " -> PUT;
            case "GET " -> GET;
            default -> DELETE;
        };
    }
}
