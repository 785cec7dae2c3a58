package dht.storage;

import static dht.storage.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many writers (group commit), readers and scans at once while memtables rotate, flush and compact
 * in the background: nothing is lost, scans stay sorted, and a tiny memtable slows writers down
 * rather than failing them.
 */
class ConcurrencyTest {
    @TempDir
    Path dir;

    @Test
    void writersReadersAndScansRunTogether() throws Exception {
        StoreOptions o = StoreOptions.defaults().withMemtableBytes(16 << 10).withMaxImmutableMemtables(1)
                .withCompaction(2, 8);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        int writers = 4, perWriter = 2500;
        try (LsmStore s = LsmStore.open(dir, o)) {
            List<Thread> ts = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int id = w;
                ts.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < perWriter; i++) {
                            s.put(b("w" + id + "-" + i), b("value-" + i), i);
                            if (i % 7 == 0) assertThat(s.get(b("w" + id + "-" + i)).value()).isEqualTo(b("value-" + i));
                        }
                    } catch (Throwable t) {
                        errors.add(t);
                    }
                }));
            }
            Thread scanner = Thread.ofPlatform().start(() -> {
                try {
                    while (!stop.get()) {
                        byte[] prev = null;
                        try (CloseableIterator<Entry> it = s.scan(new byte[0], null)) {
                            while (it.hasNext()) {
                                Entry e = it.next();
                                if (prev != null) assertThat(java.util.Arrays.compareUnsigned(prev, e.key())).isNegative();
                                prev = e.key();
                            }
                        }
                    }
                } catch (Throwable t) {
                    errors.add(t);
                }
            });
            for (Thread t : ts) t.join();
            stop.set(true);
            scanner.join();
            assertThat(errors).isEmpty();
            for (int w = 0; w < writers; w++) {
                for (int i = 0; i < perWriter; i++) assertThat(s.get(b("w" + w + "-" + i)).value()).isEqualTo(b("value-" + i));
            }
        }
        try (LsmStore s = LsmStore.open(dir, o)) {
            long n = 0;
            try (CloseableIterator<Entry> it = s.scan(new byte[0], null)) {
                while (it.hasNext()) {
                    it.next();
                    n++;
                }
            }
            assertThat(n).isEqualTo((long) writers * perWriter);
        }
    }

    /**
     * Batches (one call, queued together) and single writes from several threads at once, with a
     * memtable small enough that batches meet rotations and stalls: every entry lands, a newer
     * version in the same batch included.
     */
    @Test
    void batchedAndSingleWritesFromManyThreadsAllLand() throws Exception {
        StoreOptions o = StoreOptions.defaults().withMemtableBytes(16 << 10).withMaxImmutableMemtables(1)
                .withCompaction(2, 8);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        int threads = 4, batches = 150, perBatch = 10;
        try (LsmStore s = LsmStore.open(dir, o)) {
            List<Thread> ts = new ArrayList<>();
            for (int w = 0; w < threads; w++) {
                int id = w;
                ts.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < batches; i++) {
                            if (id % 2 == 0) {
                                List<Entry> batch = new ArrayList<>();
                                for (int j = 0; j < perBatch; j++) batch.add(Entry.value(b("t" + id + "-" + i + "-" + j), b("v" + j), 1));
                                batch.add(Entry.value(b("t" + id + "-" + i + "-0"), b("again"), 2)); // a newer version in the same batch
                                s.write(batch);
                            } else {
                                for (int j = 0; j < perBatch; j++) s.put(b("t" + id + "-" + i + "-" + j), b("v" + j), 1);
                                s.put(b("t" + id + "-" + i + "-0"), b("again"), 2);
                            }
                        }
                    } catch (Throwable t) {
                        errors.add(t);
                    }
                }));
            }
            for (Thread t : ts) t.join();
            assertThat(errors).isEmpty();
        }
        try (LsmStore s = LsmStore.open(dir, o)) {
            for (int w = 0; w < threads; w++) {
                for (int i = 0; i < batches; i++) {
                    assertThat(s.get(b("t" + w + "-" + i + "-0")).value()).isEqualTo(b("again"));
                    for (int j = 1; j < perBatch; j++) assertThat(s.get(b("t" + w + "-" + i + "-" + j)).value()).isEqualTo(b("v" + j));
                }
            }
        }
    }
}
