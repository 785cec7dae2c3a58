package dht.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A version keeps the number of copies its write asked for through the memtable, the log, tables
 * and compaction, in the expiry word, without changing its expiry; a word written before copies
 * were recorded reads as 0 (not known), and a field that is no expiry word is refused.
 */
class CopiesTest {
    private static final long HOUR = 3_600_000L;

    @TempDir
    Path dir;

    private static byte[] b(String s) { return s.getBytes(UTF_8); }

    private static long writeTwo(Store s) throws IOException {
        long expiry = System.currentTimeMillis() + HOUR;
        s.write(List.of(Entry.value(b("expiring"), b("v"), 10, expiry).withCopies(3),
                Entry.value(b("kept"), b("v"), 11).withCopies(1)));
        return expiry;
    }

    private static void assertKept(Store s, long expiry) throws IOException {
        Entry e = s.get(b("expiring"));
        assertThat(e.copies()).isEqualTo(3);
        assertThat(e.expiry()).isEqualTo(expiry);
        assertThat(s.stamp(b("expiring")).expiry()).as("the stamp's expiry, without the copies").isEqualTo(expiry);
        assertThat(s.get(b("kept")).copies()).isEqualTo(1);
        assertThat(s.get(b("kept")).expiry()).isZero();
        assertThat(s.stamp(b("kept")).expiry()).isZero();
    }

    @Test
    void theCopiesLiveInTheExpiryWordBesideTheExpiry() {
        Entry e = Entry.value(b("k"), b("v"), 1, 1_234_567L).withCopies(5);
        assertThat(e.expiryWord()).isEqualTo(1_234_567L | 5L << 48);
        assertThat(Entry.value(b("k"), b("v"), 1, e.expiryWord())).isEqualTo(e);
        assertThat(Entry.value(b("k"), b("v"), 1, 1_234_567L).copies()).as("an older word: not known").isZero();
        assertThat(Entry.tombstone(b("k"), 1).withCopies(3).copies()).as("a tombstone records none").isZero();
        assertThat(e.withCopies(Entry.MAX_COPIES + 1).copies()).as("too many to record: not known").isZero();
        assertThatThrownBy(() -> Entry.value(b("k"), b("v"), 1, 1L << 56)).isInstanceOf(IllegalArgumentException.class);
        assertThat(Entry.wordOrNever(1L << 56)).isZero();
    }

    @Test
    void theLogRecordCarriesThemAndRefusesAFieldThatIsNoExpiryWord() {
        Entry e = Entry.value(b("k"), b("value"), 7, 1_234_567L).withCopies(3);
        byte[] body = LogRecord.body(e);
        assertThat(LogRecord.decodeBody(body, body.length)).isEqualTo(e);
        Bytes.putLong(body, 9, 1L << 60);
        assertThat(LogRecord.decodeBody(body, body.length)).as("malformed").isNull();
    }

    @Test
    void theyAreKeptInTheMemtableInTablesAndThroughACompaction() throws IOException {
        long expiry;
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            expiry = writeTwo(s);
            assertKept(s, expiry);
            s.flush();
            assertKept(s, expiry);
            s.write(List.of(Entry.value(b("other"), b("v"), 12)));
            s.flush();
            s.compact();
            assertKept(s, expiry);
        }
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            assertKept(s, expiry);
        }
    }

    @Test
    void theyAreReplayedFromTheLog() throws IOException {
        Path copy = dir.resolve("copy");
        long expiry;
        try (LsmStore s = LsmStore.open(dir.resolve("live"), StoreOptions.defaults())) {
            expiry = writeTwo(s);
            DirectoryCopy.of(dir.resolve("live"), copy);
        }
        try (LsmStore s = LsmStore.open(copy, StoreOptions.defaults())) {
            assertKept(s, expiry);
        }
    }
}
