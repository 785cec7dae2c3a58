package dht.jmh;

/** 16-byte keys spread over the key space; key {@code i} of a loaded database, or a sure miss. */
final class Keys {
    static final int VALUE_SIZE = 100;

    private Keys() {}

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** Key number {@code i} of a loaded database (distinct for distinct {@code i}). */
    static byte[] loaded(long i) {
        byte[] k = new byte[16];
        write(k, 0, mix(i));
        write(k, 8, i);
        return k;
    }

    /** A key that is in no loaded database: same hashed prefix, suffix outside any index range. */
    static byte[] missing(long i) {
        byte[] k = new byte[16];
        write(k, 0, mix(i));
        write(k, 8, ~i);
        return k;
    }

    static byte[] random(java.util.concurrent.ThreadLocalRandom r) {
        byte[] k = new byte[16];
        r.nextBytes(k);
        return k;
    }

    static void write(byte[] a, int off, long v) {
        for (int j = 0; j < 8; j++) a[off + j] = (byte) (v >>> (56 - 8 * j));
    }
}
