package dht.storage;

import static dht.storage.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table file truncated under an open store: its mapping faults where the file is gone (SIGBUS,
 * an InternalError in Java). The store reports it as damage of that table, logged once, and serves
 * everything it can still prove.
 */
class TruncatedTableTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final LogCapture lines = new LogCapture(Table.class);

    private static StoreOptions opts() {
        return StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC).withBlockSize(512);
    }

    /** Table "old" holds a0..a999 at timestamp 1, a newer one b0..b999 at 2, the memtable c0..c9 at 3; returns the old one. */
    private Path twoTablesAndAMemtable(LsmStore s) throws IOException {
        for (int i = 0; i < 1000; i++) s.put(b("a" + i), b("value" + i), 1);
        s.flush();
        Path old = tables().getFirst();
        for (int i = 0; i < 1000; i++) s.put(b("b" + i), b("value" + i), 2);
        s.flush();
        for (int i = 0; i < 10; i++) s.put(b("c" + i), b("value" + i), 3);
        return old;
    }

    private List<Path> tables() throws IOException {
        try (Stream<Path> l = Files.list(dir)) {
            return l.filter(p -> p.getFileName().toString().endsWith(".sst")).sorted().toList();
        }
    }

    private static void truncate(Path p, long size) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(size);
        }
    }

    /** The error lines logged about {@code table}. */
    private List<ILoggingEvent> errorsAbout(Path table) {
        return lines.events().stream().filter(e -> e.getLevel() == Level.ERROR)
                .filter(e -> e.getFormattedMessage().contains(table.getFileName().toString())).toList();
    }

    @Test
    void aTableCutWithinItsLastPageIsFoundDamagedWithinASecondWithoutARead() throws Exception {
        try (LsmStore s = LsmStore.open(dir, opts())) {
            Path old = twoTablesAndAMemtable(s);
            // Within the last page: reads past the new end see zeros instead of faulting.
            truncate(old, Files.size(old) - 40);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (s.stats().damagedTables() == 0 && System.nanoTime() < deadline) Thread.sleep(50);
            assertThat(s.stats().damagedTables()).isEqualTo(1);
            assertThat(errorsAbout(old)).singleElement().extracting(ILoggingEvent::getFormattedMessage).asString()
                    .contains("truncated to " + Files.size(old) + " bytes");
            assertThatThrownBy(() -> s.get(b("a5"))).isInstanceOf(CorruptionException.class).hasMessageContaining("truncated");
            assertThat(s.get(b("b5"))).isNotNull();
            assertThat(errorsAbout(old)).as("still one line").hasSize(1);
        }
    }

    @Test
    void aPointReadOfATruncatedTableFailsAsDamageLoggedOnceAndTheRestIsServed() throws IOException {
        try (LsmStore s = LsmStore.open(dir, opts())) {
            Path old = twoTablesAndAMemtable(s);
            truncate(old, Files.size(old) / 2);
            for (int i = 0; i < 5; i++) {
                assertThatThrownBy(() -> s.get(b("a5"))).isInstanceOf(CorruptionException.class)
                        .hasMessageContaining(old.getFileName().toString()).hasMessageContaining("truncated");
            }
            assertThatThrownBy(() -> s.stamp(b("a7"))).isInstanceOf(CorruptionException.class);
            List<ILoggingEvent> errors = errorsAbout(old);
            assertThat(errors).as("one line for the file, however many reads").hasSize(1);
            assertThat(errors.getFirst().getFormattedMessage()).contains("truncated to " + Files.size(old) + " bytes");
            assertThat(errors.getFirst().getThrowableProxy()).as("no stack trace").isNull();
            assertThat(s.stats().damagedTables()).isEqualTo(1);
            // What a newer source holds is proven without the damaged table; writes go on.
            assertThat(s.get(b("b5")).value()).isEqualTo(b("value5"));
            assertThat(s.get(b("c5")).value()).isEqualTo(b("value5"));
            s.put(b("d"), b("new"), 4);
            assertThat(s.get(b("d")).value()).isEqualTo(b("new"));
        }
    }

    @Test
    void aScanOverATruncatedTableFailsWithItsDamageNotAnInternalError() throws IOException {
        try (LsmStore s = LsmStore.open(dir, opts())) {
            Path old = twoTablesAndAMemtable(s);
            truncate(old, 100);
            assertThatThrownBy(() -> {
                try (CloseableIterator<Entry> it = s.scan(b("a"), null, ReadBudget.UNLIMITED)) {
                    while (it.hasNext()) it.next();
                }
            }).isInstanceOf(UncheckedIOException.class).cause().isInstanceOf(CorruptionException.class)
                    .hasMessageContaining(old.getFileName().toString());
            // Once unreadable the mapping is not read again: the next scan fails the same way, with no second line.
            assertThatThrownBy(() -> s.scan(b("b"), b("c")).hasNext()).isInstanceOf(UncheckedIOException.class)
                    .cause().isInstanceOf(CorruptionException.class);
            assertThat(errorsAbout(old)).hasSize(1);
        }
    }

    @Test
    void aCompactionOverATruncatedTableReportsTheDamageAndLeavesTheTableOut() throws IOException {
        try (LsmStore s = LsmStore.open(dir, opts())) {
            Path old = twoTablesAndAMemtable(s);
            truncate(old, Files.size(old) / 2);
            assertThatThrownBy(s::compact).isInstanceOf(IOException.class).hasMessageContaining(old.getFileName().toString());
            assertThat(s.stats().damagedTables()).isEqualTo(1);
            s.compact(); // without the damaged table, which stays live for what a restart can salvage
            assertThat(s.get(b("b999")).value()).isEqualTo(b("value999"));
        }
        try (LsmStore s = LsmStore.open(dir, opts())) { // the open salvages the blocks before the cut
            assertThat(s.get(b("a0")).value()).isEqualTo(b("value0"));
            assertThat(s.get(b("b0")).value()).isEqualTo(b("value0"));
        }
    }
}
