package dht.storage;

import static dht.storage.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The storage errors a store counts for its operator ({@link StorageErrors}): real faults, real files. */
class StorageErrorsTest {
    @TempDir
    Path dir;

    @Test
    void aFailedLogFsyncIsCountedWithItsWordsAndAge() throws IOException {
        FaultyFiles ff = new FaultyFiles();
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults().withFiles(ff))) {
            StorageErrors errors = s.counters().errors();
            s.put(b("k"), b("v"), 1);
            assertThat(errors.count()).isZero();
            assertThat(errors.latestMessage()).isNull();
            assertThat(errors.latestAgeMillis()).isEqualTo(-1);
            assertThat(errors.latestAtMillis()).isZero();

            ff.failSync = p -> p.getFileName().toString().endsWith(".log");
            long before = System.currentTimeMillis();
            assertThatThrownBy(() -> s.put(b("bad"), b("x"), 1)).isInstanceOf(IOException.class);
            assertThat(errors.count()).isEqualTo(1);
            assertThat(errors.latestMessage()).contains("write-ahead log").contains(".log").contains("injected: fsync");
            assertThat(errors.latestAgeMillis()).isBetween(0L, 10_000L);
            assertThat(errors.latestAtMillis()).isGreaterThanOrEqualTo(before);

            // Refused while the store is in its error state: no new error.
            assertThatThrownBy(() -> s.put(b("later"), b("x"), 1)).isInstanceOf(IOException.class);
            assertThat(errors.count()).isEqualTo(1);
            ff.failSync = p -> false; // for the close
        }
    }

    @Test
    void aTableTruncatedUnderTheStoreIsOneErrorHoweverManyReadsFail() throws IOException {
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults().withBlockSize(512))) {
            for (int i = 0; i < 1000; i++) s.put(b("k" + i), b("value" + i), 1);
            s.flush();
            Path table;
            try (Stream<Path> l = Files.list(dir)) {
                table = l.filter(p -> p.getFileName().toString().endsWith(".sst")).findFirst().orElseThrow();
            }
            try (RandomAccessFile f = new RandomAccessFile(table.toFile(), "rw")) {
                f.setLength(f.length() / 2);
            }
            for (int i = 0; i < 5; i++) assertThatThrownBy(() -> s.get(b("k1"))).isInstanceOf(CorruptionException.class);
            StorageErrors errors = s.counters().errors();
            assertThat(errors.count()).isEqualTo(1);
            assertThat(errors.latestMessage()).contains(table.getFileName().toString()).contains("truncated");
        }
    }

    @Test
    void eachFailedFlushTryIsCounted() throws Exception {
        FaultyFiles ff = new FaultyFiles();
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults().withFiles(ff).withMemtableBytes(32 << 10)
                .withSyncPolicy(SyncPolicy.PERIODIC))) {
            ff.failCreate = p -> p.getFileName().toString().endsWith(".sst");
            for (int i = 0; i < 1000; i++) s.put(b("k" + i), b("value" + i), 1); // past one memtable: a flush
            StorageErrors errors = s.counters().errors();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (errors.count() < 2 && System.nanoTime() < deadline) Thread.sleep(50); // retried once a second
            assertThat(errors.count()).as("the first try and a retry").isGreaterThanOrEqualTo(2);
            assertThat(errors.latestMessage()).contains("flush of log").contains("injected: create");
            ff.failCreate = p -> false;
        }
    }

    @Test
    void failedFlushesOfSeveralMemtablesAreRetriedByOneChainAtATime() throws Exception {
        FaultyFiles ff = new FaultyFiles();
        java.util.concurrent.atomic.AtomicInteger tries = new java.util.concurrent.atomic.AtomicInteger();
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults().withFiles(ff).withMemtableBytes(32 << 10)
                .withMaxImmutableMemtables(20).withFlushJitter(0).withSyncPolicy(SyncPolicy.PERIODIC))) {
            ff.failCreate = p -> p.getFileName().toString().endsWith(".sst") && tries.incrementAndGet() > 0;
            for (int i = 0; i < 2000; i++) s.put(b("k" + i), b("value" + i), 1); // several memtables, each a flush
            Thread.sleep(1500); // the first failures, and their retries, are under way
            int before = tries.get();
            Thread.sleep(4000);
            // One retry a second: about 4 tries. Before, each memtable's failed flush started a
            // chain of its own: a try a second per memtable waiting.
            assertThat(tries.get() - before).isBetween(1, 6);
            ff.failCreate = p -> false;
        }
    }
}
