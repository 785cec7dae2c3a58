package dht.storage;

import static dht.storage.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log deleted under a running store: writes into the unlinked file would succeed, and a
 * black-box tester's node acknowledged writes no restart could find. The store now refuses writes
 * once it sees the log gone, and says so; with its directory still there it starts a new log, and
 * what the old one held is flushed from memory.
 */
class DeletedLogTest {
    @TempDir
    Path dir;

    @Test
    void aDeletedDirectoryMakesEveryLaterWriteFail() throws Exception {
        Path data = dir.resolve("data");
        LsmStore s = LsmStore.open(data, StoreOptions.defaults());
        try {
            s.put(b("before"), b("v"), 1);
            deleteTree(data);
            Thread.sleep(WalWriter.NAME_CHECK_NANOS / 1_000_000 + 50);
            assertThatThrownBy(() -> s.put(b("after"), b("v"), 2)).isInstanceOf(IOException.class)
                    .hasMessageContaining("deleted under the running store, with its directory");
            assertThat(s.counters().errors().latestMessage()).contains("is gone");
            Thread.sleep(WriteQueue.RECOVER_AFTER_NANOS / 1_000_000 + 100);
            assertThatThrownBy(() -> s.put(b("later"), b("v"), 3)).as("no new log in a directory that is gone")
                    .isInstanceOf(IOException.class);
        } finally {
            try {
                s.close();
            } catch (IOException | RuntimeException e) {
                // the directory is gone: closing cannot sync it
            }
        }
    }

    @Test
    void aDeletedLogIsReplacedAndWhatItHeldIsKept() throws Exception {
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            s.put(b("before"), b("v1"), 1);
            try (Stream<Path> l = Files.list(dir)) {
                for (Path p : l.filter(p -> p.getFileName().toString().endsWith(".log")).toList()) Files.delete(p);
            }
            Thread.sleep(WalWriter.NAME_CHECK_NANOS / 1_000_000 + 50);
            assertThatThrownBy(() -> s.put(b("refused"), b("v"), 2)).isInstanceOf(IOException.class)
                    .hasMessageContaining("is gone");
            Thread.sleep(WriteQueue.RECOVER_AFTER_NANOS / 1_000_000 + 100);
            s.put(b("after"), b("v3"), 3);
        }
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            assertThat(s.get(b("before"))).isNotNull();
            assertThat(s.get(b("after"))).isNotNull();
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
