package dht.node.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The parameters of a request's query string, decoded to raw bytes.
 *
 * <p>Why not Netty's QueryStringDecoder: it decodes values to Java strings, which turns bytes that
 * are not valid UTF-8 (say {@code %FF}) into U+FFFD and so maps different keys onto one. Here a
 * value is the exact byte sequence the client percent-encoded; {@code +} is a space; a {@code %} not
 * followed by two hex digits is a 400. A parameter given twice is ambiguous and is a 400 when it is
 * read; unknown parameters are ignored.
 */
public final class QueryParams {
    private final Map<String, List<byte[]>> values;

    private QueryParams(Map<String, List<byte[]>> values) {
        this.values = values;
    }

    /** Parses {@code rawQuery} (the part after {@code ?}, without it; may be empty). */
    public static QueryParams parse(CharSequence rawQuery) throws BadRequestException {
        Map<String, List<byte[]>> values = new HashMap<>();
        int n = rawQuery.length();
        int i = 0;
        while (i <= n) {
            int amp = indexOf(rawQuery, '&', i, n);
            if (amp > i) {
                int eq = indexOf(rawQuery, '=', i, amp);
                String name = new String(decode(rawQuery, i, eq), StandardCharsets.UTF_8);
                byte[] value = eq < amp ? decode(rawQuery, eq + 1, amp) : new byte[0];
                values.computeIfAbsent(name, k -> new ArrayList<>(1)).add(value);
            }
            i = amp + 1;
        }
        return new QueryParams(values);
    }

    /** The parameter's bytes, or {@code null} if absent. */
    public byte[] bytes(String name) throws BadRequestException {
        List<byte[]> v = values.get(name);
        if (v == null) return null;
        if (v.size() > 1) throw new BadRequestException("parameter '" + name + "' given more than once");
        return v.getFirst();
    }

    /** The parameter as UTF-8 text, or {@code null} if absent. */
    public String string(String name) throws BadRequestException {
        byte[] b = bytes(name);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /**
     * A positive integer parameter, or {@code absent} if the parameter is not there. Only decimal
     * digits are accepted (no sign, no spaces); zero and overflow are rejected.
     */
    public int positiveInt(String name, int absent) throws BadRequestException {
        byte[] b = bytes(name);
        if (b == null) return absent;
        long v = digits(b, Integer.MAX_VALUE);
        if (v < 1) throw notPositive(name);
        return (int) v;
    }

    /**
     * A whole number parameter from {@code min} to {@code max}, or {@code absent} if the parameter is
     * not there. Only decimal digits are accepted (no sign, point, exponent or spaces).
     */
    public long longInRange(String name, long min, long max, long absent) throws BadRequestException {
        byte[] b = bytes(name);
        if (b == null) return absent;
        long v = digits(b, max);
        if (v < min) throw notInRange(name, min, max);
        return v;
    }

    /**
     * The decimal value of {@code b}, or -1 when it is empty, holds anything but digits, or is over
     * {@code max}; callers' minimums are at least 0, so -1 is always out of range. The value, not the
     * digit count, is bounded: leading zeros are fine.
     */
    private static long digits(byte[] b, long max) {
        if (b.length == 0) return -1;
        long v = 0;
        for (byte c : b) {
            if (c < '0' || c > '9' || v > max) return -1;
            v = v * 10 + (c - '0');
        }
        return v > max ? -1 : v;
    }

    private static BadRequestException notInRange(String name, long min, long max) {
        return new BadRequestException("'" + name + "' must be a whole number from " + min + " to " + max);
    }

    private static BadRequestException notPositive(String name) {
        return new BadRequestException("'" + name + "' must be a positive integer (decimal digits, at most " + Integer.MAX_VALUE + ")");
    }

    private static int indexOf(CharSequence s, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == c) return i;
        }
        return to;
    }

    /** Decodes {@code s[from, to)} into an array of exactly its decoded length: one allocation per value. */
    private static byte[] decode(CharSequence s, int from, int to) throws BadRequestException {
        int n = 0;
        for (int i = from; i < to; i++, n++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= to) {
                    throw new BadRequestException("malformed percent-encoding in query");
                }
                if (Character.digit(s.charAt(i + 1), 16) < 0 || Character.digit(s.charAt(i + 2), 16) < 0) {
                    throw new BadRequestException("malformed percent-encoding in query");
                }
                i += 2;
            } else if (c > 0xFF) {
                // The decoder hands us the request line byte by byte, so this cannot come from the wire.
                throw new BadRequestException("invalid character in query");
            }
        }
        byte[] out = new byte[n];
        int o = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == '+') {
                out[o++] = ' ';
            } else if (c == '%') {
                out[o++] = (byte) (Character.digit(s.charAt(i + 1), 16) << 4 | Character.digit(s.charAt(i + 2), 16));
                i += 2;
            } else {
                out[o++] = (byte) c;
            }
        }
        return out;
    }
}
