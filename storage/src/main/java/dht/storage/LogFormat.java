package dht.storage;

import java.util.zip.CRC32C;

/**
 * The framing of a write-ahead log (docs/storage-format.md, "Write-ahead log"): the file is a
 * sequence of {@value #BLOCK}-byte blocks (the last one may be short); each block holds fragments
 * {@code crc32c u32 | length u16 | type u8 | payload[length]}, never crossing a block boundary,
 * and a block tail shorter than {@value #HEADER} bytes is zero-filled. A logical record
 * ({@link LogRecord}) is one {@link #FULL} fragment, or a {@link #FIRST}, any number of
 * {@link #MIDDLE} and a {@link #LAST}. The CRC covers the type byte and the payload.
 *
 * <p>Why blocks: a reader that meets damage resumes at the next block boundary, where a fragment
 * header always starts, instead of searching bytes a value may have filled with look-alike records.
 */
final class LogFormat {
    static final int BLOCK = 32 * 1024;
    static final int HEADER = 4 + 2 + 1;
    /** The most payload one fragment carries: a whole block but its header. */
    static final int MAX_PAYLOAD = BLOCK - HEADER;

    static final byte FULL = 1;
    static final byte FIRST = 2;
    static final byte MIDDLE = 3;
    static final byte LAST = 4;

    private LogFormat() {}

    /** The fragment type for a piece of a body: whether it starts the body and whether it ends it. */
    static byte type(boolean first, boolean last) {
        return first ? (last ? FULL : FIRST) : (last ? LAST : MIDDLE);
    }

    static String typeName(byte type) {
        return switch (type) {
            case FULL -> "FULL";
            case FIRST -> "FIRST";
            case MIDDLE -> "MIDDLE";
            case LAST -> "LAST";
            default -> "type " + (type & 0xFF);
        };
    }

    /** The CRC-32C of a fragment: its type byte and payload, {@code len + 1} bytes from {@code off} in {@code a}. */
    static int crc(byte[] a, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(a, off, len + 1);
        return (int) c.getValue();
    }
}
