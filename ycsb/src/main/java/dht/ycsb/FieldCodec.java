package dht.ycsb;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

/**
 * A YCSB record (a map of field names to values) as the one value dht stores under its key.
 *
 * <p>Format, all integers 4-byte big-endian: the number of fields, then per field the length of
 * its UTF-8 name, the name, the length of its value, the value. Fields are written in the map's
 * iteration order; a decoder keeps that order. A value that ends before its lengths say is
 * rejected with an {@link IllegalArgumentException}.
 */
public final class FieldCodec {
    private FieldCodec() {}

    public static byte[] encode(Map<String, ByteIterator> fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 128 * fields.size());
        writeInt(out, fields.size());
        for (Map.Entry<String, ByteIterator> f : fields.entrySet()) {
            byte[] name = f.getKey().getBytes(StandardCharsets.UTF_8);
            byte[] value = f.getValue().toArray();
            writeInt(out, name.length);
            out.writeBytes(name);
            writeInt(out, value.length);
            out.writeBytes(value);
        }
        return out.toByteArray();
    }

    /** Every field of {@code record}, or only those named in {@code wanted} when it is not null. */
    public static Map<String, ByteIterator> decode(byte[] record, Set<String> wanted) {
        ByteBuffer in = ByteBuffer.wrap(record);
        int count = length(in);
        Map<String, ByteIterator> fields = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String name = new String(bytes(in), StandardCharsets.UTF_8);
            byte[] value = bytes(in);
            if (wanted == null || wanted.contains(name)) fields.put(name, new ByteArrayByteIterator(value));
        }
        return fields;
    }

    /** {@code current}'s fields with {@code changes} written over them (a YCSB update). */
    public static byte[] merge(byte[] current, Map<String, ByteIterator> changes) {
        Map<String, ByteIterator> fields = decode(current, null);
        fields.putAll(changes);
        return encode(fields);
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }

    private static int length(ByteBuffer in) {
        if (in.remaining() < 4) throw new IllegalArgumentException("record truncated: no length");
        int n = in.getInt();
        if (n < 0) throw new IllegalArgumentException("record corrupt: negative length " + n);
        return n;
    }

    private static byte[] bytes(ByteBuffer in) {
        int n = length(in);
        if (in.remaining() < n) {
            throw new IllegalArgumentException("record truncated: " + n + " bytes announced, " + in.remaining() + " left");
        }
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }
}
