package dht.storage;

/**
 * The write-ahead log record codec (docs/storage-format.md, "Log"):
 * {@code crc32c u32 | length u32 | type u8 | timestamp i64 | expiry i64 | key_len u32 | key | value},
 * little-endian; the CRC covers everything after itself (length included), {@code length} counts
 * the bytes after the length field.
 */
final class LogRecord {
    static final int HEADER = 8;          // crc + length
    static final int BODY_FIXED = 1 + 8 + 8 + 4;
    static final byte PUT = 1;
    static final byte DELETE = 2;
    static final int MAX_BODY = 256 << 20;

    private LogRecord() {}

    static byte[] encode(Entry e) {
        byte[] k = e.key();
        byte[] v = e.value();
        int body = BODY_FIXED + k.length + (v == null ? 0 : v.length);
        byte[] r = new byte[HEADER + body];
        Bytes.putInt(r, 4, body);
        r[8] = e.isTombstone() ? DELETE : PUT;
        Bytes.putLong(r, 9, e.timestamp());
        Bytes.putLong(r, 17, 0L);
        Bytes.putInt(r, 25, k.length);
        System.arraycopy(k, 0, r, 29, k.length);
        if (v != null) System.arraycopy(v, 0, r, 29 + k.length, v.length);
        Bytes.putInt(r, 0, Bytes.crc(r, 4, r.length - 4));
        return r;
    }

    /** Decodes a body whose CRC has been checked; returns null if it is structurally invalid. */
    static Entry decodeBody(byte[] b, int len) {
        if (len < BODY_FIXED) return null;
        byte type = b[0];
        long ts = Bytes.getLong(b, 1);
        int kl = Bytes.getInt(b, 17);
        if (kl < 0 || kl > len - BODY_FIXED) return null;
        byte[] key = java.util.Arrays.copyOfRange(b, BODY_FIXED, BODY_FIXED + kl);
        int vl = len - BODY_FIXED - kl;
        if (type == DELETE) return vl == 0 ? Entry.tombstone(key, ts) : null;
        if (type != PUT) return null;
        return Entry.value(key, java.util.Arrays.copyOfRange(b, BODY_FIXED + kl, len), ts);
    }
}
