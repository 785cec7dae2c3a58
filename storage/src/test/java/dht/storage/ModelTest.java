package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Model-based randomized test: long random sequences of put, delete, get, scan, flush, compact and
 * reopen, checked against a sorted map that applies {@link Entry#supersedes} itself. Timestamps
 * collide and arrive out of order on purpose. The seed is in every failure message.
 */
class ModelTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void randomOperationsMatchTheModel(long seed) throws Exception {
        try {
            run(seed, 4000);
        } catch (AssertionError | Exception e) {
            throw new AssertionError("model test failed with seed " + seed + ": " + e, e);
        }
    }

    private void run(long seed, int steps) throws IOException {
        Random r = new Random(seed);
        StoreOptions o = StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC)
                .withMemtableBytes((8 << 10) + r.nextInt(32 << 10)).withBlockSize(256 + r.nextInt(2048))
                .withCompaction(2 + r.nextInt(3), 40);
        TreeMap<byte[], Entry> model = new TreeMap<>(Arrays::compareUnsigned);
        long base = System.currentTimeMillis() + 3_600_000; // young: tombstones are never dropped here
        LsmStore s = LsmStore.open(dir, o);
        try {
            for (int step = 0; step < steps; step++) {
                int op = r.nextInt(100);
                if (op < 45) {
                    byte[] k = key(r);
                    byte[] v = new byte[r.nextInt(r.nextInt(10) == 0 ? 2000 : 40)];
                    r.nextBytes(v);
                    Entry e = Entry.value(k, v, base + r.nextInt(50));
                    s.put(k, v, e.timestamp());
                    apply(model, e);
                } else if (op < 60) {
                    byte[] k = key(r);
                    Entry e = Entry.tombstone(k, base + r.nextInt(50));
                    s.delete(k, e.timestamp());
                    apply(model, e);
                } else if (op < 80) {
                    byte[] k = key(r);
                    assertThat(s.get(k)).as("get %s at step %d", Arrays.toString(k), step).isEqualTo(model.get(k));
                } else if (op < 95) {
                    byte[] from = r.nextInt(5) == 0 ? new byte[0] : key(r);
                    byte[] to = r.nextInt(3) == 0 ? null : key(r);
                    List<Entry> got = new ArrayList<>();
                    try (CloseableIterator<Entry> it = s.scan(from, to)) {
                        while (it.hasNext()) got.add(it.next());
                    }
                    Map<byte[], Entry> expected = to == null ? model.tailMap(from, true)
                            : Arrays.compareUnsigned(from, to) >= 0 ? Map.of() : model.subMap(from, true, to, false);
                    assertThat(got).as("scan at step %d", step).containsExactlyElementsOf(expected.values());
                } else if (op < 97) {
                    s.flush();
                } else if (op < 99) {
                    s.compact();
                } else {
                    s.close();
                    s = LsmStore.open(dir, o);
                }
            }
            s.close();
            s = LsmStore.open(dir, o);
            List<Entry> all = new ArrayList<>();
            try (CloseableIterator<Entry> it = s.scan(new byte[0], null)) {
                while (it.hasNext()) all.add(it.next());
            }
            assertThat(all).containsExactlyElementsOf(model.values());
        } finally {
            s.close();
        }
    }

    private static byte[] key(Random r) {
        int len = 1 + r.nextInt(3);
        byte[] k = new byte[len];
        for (int i = 0; i < len; i++) k[i] = (byte) (r.nextInt(4) * 0x55); // 0x00, 0x55, 0xaa, 0xff
        return k;
    }

    private static void apply(TreeMap<byte[], Entry> model, Entry e) {
        Entry old = model.get(e.key());
        if (e.supersedes(old)) model.put(e.key(), e);
    }
}
