package dht.storage;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child process of {@link CrashTest}: writes forever from several threads and prints
 * {@code ACK <seq>} on stdout after each write is acknowledged, until the parent kills it.
 * Arguments: directory, sync policy, first sequence number.
 */
public final class CrashChild {
    static final int KEYS = 3000;
    static final int THREADS = 3;

    static byte[] key(long seq) { return ("k" + (seq % KEYS)).getBytes(StandardCharsets.UTF_8); }

    static boolean isDelete(long seq) { return seq % 11 == 0; }

    static byte[] value(long seq) {
        StringBuilder sb = new StringBuilder("v").append(seq).append(':');
        int len = 100 + (int) (seq % 200);
        while (sb.length() < len) sb.append((char) ('a' + sb.length() % 26));
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    static StoreOptions options(SyncPolicy policy) {
        return StoreOptions.defaults().withSyncPolicy(policy).withMemtableBytes(256 << 10).withBlockSize(1024)
                .withCompaction(3, 40)
                // Sequence numbers are the timestamps here; keep every tombstone (a deleted key must
                // read as a tombstone, not as absent, for the parent's check).
                .withTombstoneGrace(java.time.Duration.ofDays(1), ts -> System.currentTimeMillis());
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        SyncPolicy policy = SyncPolicy.valueOf(args[1]);
        AtomicLong seq = new AtomicLong(Long.parseLong(args[2]));
        LsmStore store = LsmStore.open(dir, options(policy));
        System.out.println("READY");
        Thread[] ts = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            ts[t] = new Thread(() -> {
                try {
                    while (true) {
                        long s = seq.getAndIncrement();
                        if (isDelete(s)) store.delete(key(s), s);
                        else store.put(key(s), value(s), s);
                        System.out.println("ACK " + s);
                    }
                } catch (Exception e) {
                    System.out.println("ERROR " + e);
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) t.join();
    }
}
