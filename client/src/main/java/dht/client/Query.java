package dht.client;

/**
 * Builds a request target ({@code /path?name=value&...}) whose values are raw bytes, percent-encoded
 * byte by byte: a key is exactly the bytes given, whether or not they are valid UTF-8 (the node
 * decodes each {@code %XX} to one byte). RFC 3986's unreserved characters go as they are, and so do
 * those a query value may hold literally ({@code / : @ ! * , ; $}), so that a key of slashes does
 * not triple in length against the node's URI limit; {@code + & = % #} and the rest are encoded.
 */
final class Query {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();
    private final StringBuilder target;
    private boolean first = true;

    Query(String path) {
        this.target = new StringBuilder(path);
    }

    Query bytes(String name, byte[] value) {
        target.append(first ? '?' : '&').append(name).append('=');
        first = false;
        for (byte b : value) {
            int c = b & 0xFF;
            if (literal(c)) {
                target.append((char) c);
            } else {
                target.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xF]);
            }
        }
        return this;
    }

    Query text(String name, String value) {
        return bytes(name, value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Appends {@code name=value} when {@code value} is set (positive); 0 means "leave it to the node". */
    Query positive(String name, int value) {
        return value > 0 ? number(name, value) : this;
    }

    Query number(String name, long value) {
        return text(name, Long.toString(value));
    }

    private static boolean literal(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~' || "/:@!*,;$".indexOf(c) >= 0;
    }

    @Override
    public String toString() {
        return target.toString();
    }
}
