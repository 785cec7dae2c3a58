package dht.storage;

import static dht.storage.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flush that keeps failing (a full disk: its table cannot be created) is retried every second;
 * its log lines are throttled to one per 10 s, where each try wrote two before.
 */
class FlushRetryLogTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final LogCapture lines = new LogCapture(LsmStore.class);

    private long linesContaining(Level level, String words) {
        return lines.count(level, words);
    }

    @Test
    void failedFlushRetriesLogOneLineThenWaitAndTheFlushGoesThroughOnceTheDiskHasRoom() throws Exception {
        FaultyFiles ff = new FaultyFiles();
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults().withFiles(ff).withMemtableBytes(32 << 10)
                .withSyncPolicy(SyncPolicy.PERIODIC))) {
            ff.failCreate = p -> p.getFileName().toString().endsWith(".sst");
            for (int i = 0; i < 1000; i++) s.put(b("k" + i), b("value" + i), 1); // past one memtable: a flush
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (s.counters().errors().count() < 3 && System.nanoTime() < deadline) Thread.sleep(50);
            assertThat(s.counters().errors().count()).as("tries that failed, a second apart").isGreaterThanOrEqualTo(3);

            ILoggingEvent failure = lines.events().stream().filter(e -> e.getLevel() == Level.ERROR).findFirst().orElseThrow();
            assertThat(failure.getFormattedMessage()).contains("flush of log").contains("retrying every 1 s")
                    .contains("injected: create");
            assertThat(failure.getThrowableProxy()).as("no stack trace").isNull();
            assertThat(linesContaining(Level.ERROR, "flush of log")).as("one line for several tries").isEqualTo(1);
            assertThat(linesContaining(Level.INFO, "flushing memtable")).as("the start of the first try only").isEqualTo(1);

            ff.failCreate = p -> false;
            deadline = System.nanoTime() + 10_000_000_000L;
            while (s.stats().pendingFlushes() > 0 && System.nanoTime() < deadline) Thread.sleep(50);
            assertThat(s.stats().pendingFlushes()).as("flushed once it could be").isZero();
            assertThat(s.stats().tables()).isPositive();
        }
    }
}
