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
}
