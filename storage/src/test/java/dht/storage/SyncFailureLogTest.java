package dht.storage;

import static dht.storage.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under the periodic sync policy a disk whose fsyncs keep failing fails every sync, ten a second:
 * each is counted as a storage error, but logged once per 10 s, where each wrote a line before.
 */
class SyncFailureLogTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final LogCapture lines = new LogCapture(LsmStore.class);

    @Test
    void aFailingPeriodicSyncIsCountedEachTimeAndLoggedOnce() throws Exception {
        FaultyFiles ff = new FaultyFiles();
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults().withFiles(ff).withSyncPolicy(SyncPolicy.PERIODIC)
                .withSyncIntervalMillis(50))) {
            s.put(b("k"), b("v"), 1);
            ff.failSync = p -> p.getFileName().toString().endsWith(".log");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (s.counters().errors().count() < 5 && System.nanoTime() < deadline) Thread.sleep(20);
            ff.failSync = p -> false;
            assertThat(s.counters().errors().count()).as("each failed sync counted").isGreaterThanOrEqualTo(5);
            assertThat(lines.count(Level.ERROR, "periodic sync")).as("one line for them all").isEqualTo(1);
        }
    }
}
