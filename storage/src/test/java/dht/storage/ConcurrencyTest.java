package dht.storage;

import static dht.storage.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
     * version in the same batch included. Under both sync policies: without a sync per write,
     * waiting writers spin before they park.
     */
    @ParameterizedTest
    @EnumSource(SyncPolicy.class)
    void batchedAndSingleWritesFromManyThreadsAllLand(SyncPolicy policy) throws Exception {
        StoreOptions o = StoreOptions.defaults().withMemtableBytes(16 << 10).withMaxImmutableMemtables(1)
                .withCompaction(2, 8).withSyncPolicy(policy);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        int threads = 6, batches = 150, perBatch = 10;
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

    /**
     * A log append that fails fails every write of its group (the leader's and those waiting on
     * it) and every later one, so that each acknowledged write is there after a reopen.
     */
    @Test
    void aFailedGroupCommitFailsEveryWriterOfItAndKeepsEveryAcknowledgedWrite() throws Exception {
        FaultyFiles ff = new FaultyFiles();
        StoreOptions o = StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC).withFiles(ff);
        int threads = 4;
        AtomicIntegerArray acknowledged = new AtomicIntegerArray(threads);
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        List<Thread> ts = new ArrayList<>();
        try (LsmStore s = LsmStore.open(dir, o)) {
            for (int w = 0; w < threads; w++) {
                int id = w;
                ts.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; ; i++) {
                        try {
                            s.put(b("t" + id + "-" + i), b("v" + i), 1);
                        } catch (java.io.IOException e) {
                            return; // the injected failure, or the refusal after it
                        } catch (Throwable t) {
                            unexpected.add(t);
                            return;
                        }
                        acknowledged.set(id, i + 1);
                    }
                }));
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (sum(acknowledged) < 20_000 && System.nanoTime() < deadline) Thread.sleep(1);
            ff.failWrite = p -> p.getFileName().toString().endsWith(".log");
            for (Thread t : ts) {
                t.join(10_000);
                assertThat(t.isAlive()).as("a writer still waiting after the log failed").isFalse();
            }
            assertThat(unexpected).isEmpty();
        }
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            for (int w = 0; w < threads; w++) {
                for (int i = 0; i < acknowledged.get(w); i++) {
                    assertThat(s.get(b("t" + w + "-" + i))).as("acknowledged write t%d-%d", w, i).isNotNull();
                }
            }
        }
    }

    private static int sum(AtomicIntegerArray a) {
        int n = 0;
        for (int i = 0; i < a.length(); i++) n += a.get(i);
        return n;
    }
}
