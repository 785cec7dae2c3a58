package dht.storage;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * Child of {@link OverHeapTest}, run with -Xmx128m: writes {@code bytes} of data in random key
 * order, reopens, scans everything back and checks every entry. Exits 0 only if all is well.
 */
public final class OverHeapChild {
    static final int VALUE = 1000;

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    static byte[] key(long i) {
        byte[] k = new byte[16];
        long h = mix(i);
        for (int j = 0; j < 8; j++) k[j] = (byte) (h >>> (56 - 8 * j));
        for (int j = 0; j < 8; j++) k[8 + j] = (byte) (i >>> (56 - 8 * j));
        return k;
    }

    static void fill(byte[] v, long i) {
        for (int j = 0; j < 8; j++) v[j] = (byte) (i >>> (56 - 8 * j));
        for (int j = 8; j < v.length; j++) v[j] = (byte) (i * 31 + j);
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long total = Long.parseLong(args[1]);
        long n = total / VALUE;
        StoreOptions o = StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC);
        long t0 = System.nanoTime();
        try (LsmStore s = LsmStore.open(dir, o)) {
            byte[] v = new byte[VALUE];
            for (long i = 0; i < n; i++) {
                fill(v, i);
                s.put(key(i), v.clone(), 1);
                if (i % 100_000 == 0) {
                    double secs = (System.nanoTime() - t0) / 1e9;
                    System.out.printf("written %d of %d (%.0f MB/s) heap used %d MB%n", i, n,
                            i * (double) VALUE / 1e6 / Math.max(secs, 1e-3),
                            (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20);
                }
            }
            System.out.println("stats " + s.stats());
            s.flush();
            long tc = System.nanoTime();
            s.compact(); // one merge of everything: the biggest job the heap must survive
            System.out.printf("major compaction: %.1f s, stats %s%n", (System.nanoTime() - tc) / 1e9, s.stats());
        }
        long t1 = System.nanoTime();
        System.out.printf("write phase: %d entries, %.1f s%n", n, (t1 - t0) / 1e9);
        long seen = 0;
        try (LsmStore s = LsmStore.open(dir, o); CloseableIterator<Entry> it = s.scan(new byte[0], null)) {
            System.out.println("stats " + s.stats());
            byte[] expect = new byte[VALUE];
            byte[] prev = null;
            while (it.hasNext()) {
                Entry e = it.next();
                long i = 0;
                for (int j = 0; j < 8; j++) i = (i << 8) | (e.value()[j] & 0xff);
                fill(expect, i);
                if (!Arrays.equals(e.key(), key(i)) || !Arrays.equals(e.value(), expect)) {
                    System.out.println("MISMATCH at entry " + seen);
                    System.exit(2);
                }
                if (prev != null && Arrays.compareUnsigned(prev, e.key()) >= 0) {
                    System.out.println("ORDER broken at entry " + seen);
                    System.exit(3);
                }
                prev = e.key();
                seen++;
            }
        }
        long t2 = System.nanoTime();
        System.out.printf("scan phase: %d entries, %.1f s%n", seen, (t2 - t1) / 1e9);
        if (seen != n) {
            System.out.println("COUNT " + seen + " != " + n);
            System.exit(4);
        }
        System.out.println("OK");
    }
}
