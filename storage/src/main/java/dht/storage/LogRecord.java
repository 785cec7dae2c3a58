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

    /** The whole record of {@code e}, in one array: for tests and tools; the log writes {@link #head} and the value. */
    static byte[] encode(Entry e) {
        byte[] head = head(e);
        byte[] r = java.util.Arrays.copyOf(head, head.length + e.valueLength());
        if (!e.isTombstone()) {
            java.lang.foreign.MemorySegment.copy(e.valueSegment(), java.lang.foreign.ValueLayout.JAVA_BYTE, 0, r, head.length,
                    e.valueLength());
        }
        return r;
    }

    /** The record's length in the log: its head and its value. */
    static long size(Entry e) {
        return HEADER + BODY_FIXED + e.key().length + (long) e.valueLength();
    }

    /**
     * The record's bytes up to its value (crc, length, type, timestamp, expiry, key), with the CRC
     * already taken over the value too: the value itself is never copied into a record array, so a
     * large one is not a second large array on the heap (or any array, when it is off the heap).
     */
    static byte[] head(Entry e) {
        byte[] k = e.key();
        int v = e.valueLength();
        byte[] r = new byte[HEADER + BODY_FIXED + k.length];
        Bytes.putInt(r, 4, BODY_FIXED + k.length + v);
        r[8] = e.isTombstone() ? DELETE : PUT;
        Bytes.putLong(r, 9, e.timestamp());
        Bytes.putLong(r, 17, 0L);
        Bytes.putInt(r, 25, k.length);
        System.arraycopy(k, 0, r, 29, k.length);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(r, 4, r.length - 4);
        if (e.isBorrowed()) crc.update(e.valueSegment().asByteBuffer());
        else if (v > 0) crc.update(e.value());
        Bytes.putInt(r, 0, (int) crc.getValue());
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
