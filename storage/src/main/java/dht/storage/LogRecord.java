package dht.storage;

/**
 * The body of one logical log record (docs/storage-format.md, "Log"):
 * {@code type u8 | timestamp i64 | expiry i64 | key_len u32 | key | value}, little-endian. The log
 * splits a body into fragments ({@link LogFormat}), which carry the length and the checksums.
 */
final class LogRecord {
    static final int BODY_FIXED = 1 + 8 + 8 + 4;
    static final byte PUT = 1;
    static final byte DELETE = 2;
    /** The largest body the store writes, and so the largest a reader assembles. */
    static final int MAX_BODY = 256 << 20;

    private LogRecord() {}

    /** The body's length: its head and its value. */
    static long bodyLength(Entry e) {
        return BODY_FIXED + e.key().length + (long) e.valueLength();
    }

    /**
     * What the record takes in the log, for batch limits: the body and a fragment header for each
     * block it may touch (block tails left as padding are not counted).
     */
    static long size(Entry e) {
        long body = bodyLength(e);
        return body + (long) LogFormat.HEADER * (2 + body / LogFormat.MAX_PAYLOAD);
    }

    /**
     * The body up to its value (type, timestamp, expiry, key): the log copies the value from where
     * it is after it, so a large value is never a second large array on the heap (or any array,
     * when it is off the heap). Written at the start of {@code r}, which has room for
     * {@code BODY_FIXED} bytes and the key.
     */
    static void head(Entry e, byte[] r) {
        byte[] k = e.key();
        r[0] = e.isTombstone() ? DELETE : PUT;
        Bytes.putLong(r, 1, e.timestamp());
        Bytes.putLong(r, 9, e.expiryWord());
        Bytes.putInt(r, 17, k.length);
        System.arraycopy(k, 0, r, BODY_FIXED, k.length);
    }

    /** The whole body of {@code e}, in one array: for tests and tools. */
    static byte[] body(Entry e) {
        int headLength = BODY_FIXED + e.key().length;
        byte[] r = new byte[headLength + e.valueLength()];
        head(e, r);
        if (!e.isTombstone()) {
            java.lang.foreign.MemorySegment.copy(e.valueSegment(), java.lang.foreign.ValueLayout.JAVA_BYTE, 0, r, headLength,
                    e.valueLength());
        }
        return r;
    }

    /** Decodes the first {@code len} bytes of {@code b}, a whole body; returns null if it is malformed. */
    static Entry decodeBody(byte[] b, int len) {
        if (len < BODY_FIXED) return null;
        byte type = b[0];
        long ts = Bytes.getLong(b, 1);
        long expiry = Bytes.getLong(b, 9);
        int kl = Bytes.getInt(b, 17);
        if (kl < 0 || kl > len - BODY_FIXED) return null;
        byte[] key = java.util.Arrays.copyOfRange(b, BODY_FIXED, BODY_FIXED + kl);
        int vl = len - BODY_FIXED - kl;
        if (type == DELETE) return vl == 0 ? Entry.tombstone(key, ts) : null;
        if (type != PUT || !Entry.isExpiryWord(expiry)) return null; // malformed
        return Entry.value(key, java.util.Arrays.copyOfRange(b, BODY_FIXED + kl, len), ts, expiry);
    }
}
