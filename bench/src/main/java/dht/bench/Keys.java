package dht.bench;

import io.netty.buffer.ByteBuf;

/**
 * Key naming: "k" followed by the index zero-padded to 10 digits, so that byte order equals
 * numeric order and a range [k(i), k(i+n)) holds exactly the keys i..i+n-1.
 */
public final class Keys {
    public static final int WIDTH = 10;
    public static final long MAX_INDEX = 9_999_999_999L;

    private Keys() {
    }

    public static String key(long index) {
        StringBuilder sb = new StringBuilder(WIDTH + 1).append('k');
        String digits = Long.toString(index);
        for (int i = digits.length(); i < WIDTH; i++) {
            sb.append('0');
        }
        return sb.append(digits).toString();
    }

    /** Writes the key as ASCII without allocating. */
    public static void write(ByteBuf out, long index) {
        if (index < 0 || index > MAX_INDEX) {
            throw new IllegalArgumentException("key index out of range: " + index);
        }
        out.writeByte('k');
        int at = out.writerIndex();
        out.ensureWritable(WIDTH);
        for (int i = WIDTH - 1; i >= 0; i--) {
            out.setByte(at + i, (int) ('0' + index % 10));
            index /= 10;
        }
        out.writerIndex(at + WIDTH);
    }
}
