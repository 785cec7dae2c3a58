package dht.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Values with an expiry: carried through the memtable, log and tables, judged when read, and compacted away. */
class ExpiryTest {
    private static final long HOUR = 3_600_000L;

    @TempDir
    Path dir;

    private static byte[] b(String s) { return s.getBytes(UTF_8); }

    private static List<String> scan(Store s) throws IOException {
        return LsmStoreTest.keys(s.scan(new byte[0], null));
    }

    /** Writes a live expiring value, an expired one and a permanent one at timestamps 10, 11, 12. */
    private static long writeThree(Store s) throws IOException {
        long now = System.currentTimeMillis();
        s.write(List.of(Entry.value(b("live"), b("v"), 10, now + HOUR),
                Entry.value(b("gone"), b("v"), 11, now - 1),
                Entry.value(b("kept"), b("v"), 12)));
        return now + HOUR;
    }

    private static void assertReadsOfThree(Store s, long liveExpiry) throws IOException {
        Entry live = s.get(b("live"));
        assertThat(live.value()).isEqualTo(b("v"));
        assertThat(live.expiry()).isEqualTo(liveExpiry);
        Entry gone = s.get(b("gone"));
        assertThat(gone.isTombstone()).as("an expired value reads as a tombstone").isTrue();
        assertThat(gone.timestamp()).as("with the value's timestamp").isEqualTo(11);
        assertThat(s.get(b("kept")).expiry()).isZero();
        assertThat(scan(s)).containsExactly("gone-", "kept=v", "live=v");
    }

    @Test
    void anExpiredValueReadsAsATombstoneInTheMemtable() throws IOException {
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            assertReadsOfThree(s, writeThree(s));
        }
    }

    @Test
    void expiryIsKeptInTablesAndAcrossAReopen() throws IOException {
        long liveExpiry;
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            liveExpiry = writeThree(s);
            s.flush();
            assertReadsOfThree(s, liveExpiry);
        }
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            assertReadsOfThree(s, liveExpiry);
        }
    }

    @Test
    void expiryIsReplayedFromTheLog() throws IOException {
        Path copy = dir.resolve("copy");
        long liveExpiry;
        try (LsmStore s = LsmStore.open(dir.resolve("live"), StoreOptions.defaults())) {
            liveExpiry = writeThree(s);
            // a copy taken while the writes are only in the log: opening it replays them
            DirectoryCopy.of(dir.resolve("live"), copy);
        }
        try (Stream<Path> files = Files.list(copy)) {
            assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.endsWith(".log"))
                    .noneMatch(n -> n.endsWith(".sst"));
        }
        try (LsmStore s = LsmStore.open(copy, StoreOptions.defaults())) {
            assertReadsOfThree(s, liveExpiry);
        }
    }

    @Test
    void theLogRecordCarriesTheExpiry() {
        Entry e = Entry.value(b("k"), b("value"), 7, 1_234_567L);
        byte[] body = LogRecord.body(e);
        assertThat(Bytes.getLong(body, 9)).isEqualTo(1_234_567L);
        assertThat(LogRecord.decodeBody(body, body.length)).isEqualTo(e);
        assertThat(LogRecord.decodeBody(body, body.length).expiry()).isEqualTo(1_234_567L);
    }

    @Test
    void aLaterWriteWithoutExpiryMakesTheKeyPermanentAndAnExpiredNewestVersionHidesOlderOnes() throws IOException {
        long now = System.currentTimeMillis();
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            s.put(b("a"), b("old"), 1);
            s.flush();
            s.write(List.of(Entry.value(b("a"), b("expiring"), 2, now - 1)));
            assertThat(s.get(b("a")).isTombstone()).as("the older live version does not come back").isTrue();
            s.flush();
            assertThat(s.get(b("a")).isTombstone()).isTrue();
            assertThat(scan(s)).containsExactly("a-");
            s.put(b("a"), b("new"), 3);
            s.flush();
            s.compact();
            assertThat(s.get(b("a")).value()).isEqualTo(b("new"));
            assertThat(s.get(b("a")).expiry()).isZero();
        }
    }

    @Test
    void anExpiredReadGivesItsReservationBack() throws IOException {
        AtomicInteger held = new AtomicInteger();
        ReadBudget budget = new ReadBudget() {
            @Override
            public boolean tryReserve(int bytes) {
                held.addAndGet(bytes);
                return true;
            }

            @Override
            public void release(int bytes) {
                held.addAndGet(-bytes);
            }
        };
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            s.write(List.of(Entry.value(b("a"), new byte[100], 1, System.currentTimeMillis() - 1)));
            assertThat(s.get(b("a"), budget).isTombstone()).isTrue();
            s.flush();
            assertThat(s.get(b("a"), budget).isTombstone()).isTrue();
            assertThat(held.get()).isZero();
        }
    }

    /** Every entry of the store's tables, read from the files. */
    private List<Entry> tableEntries(Path d) throws IOException {
        List<Entry> out = new ArrayList<>();
        List<Path> tables;
        try (Stream<Path> files = Files.list(d)) {
            tables = files.filter(p -> p.toString().endsWith(".sst")).sorted().toList();
        }
        for (Path p : tables) {
            Table t = Table.open(NioStorageFiles.INSTANCE, p, 0);
            t.retain();
            try {
                for (Iterator<Entry> it = t.iterator(null, null); it.hasNext(); ) out.add(it.next());
            } finally {
                t.release();
            }
        }
        return out;
    }

    @Test
    void compactionTurnsAValueExpiredPastTheGraceIntoATombstoneAndPurgesIt() throws IOException {
        long now = System.currentTimeMillis();
        long day = 24 * HOUR;
        StoreOptions o = StoreOptions.defaults().withTombstoneGrace(Duration.ofDays(1), t -> t);
        try (LsmStore s = LsmStore.open(dir, o)) {
            s.write(List.of(
                    Entry.value(b("purged"), b("v"), now - 3 * day, now - 2 * day),
                    // written "in the future" (by timestampMillis): its tombstone is never old enough to forget
                    Entry.value(b("tombstoned"), b("v"), now + HOUR, now - 2 * day),
                    // expired within the grace: kept as it is, still reading as absent
                    Entry.value(b("recent"), b("v"), now - 3 * day, now - HOUR),
                    Entry.value(b("live"), b("v"), now - 3 * day, now + day)));
            s.flush();
            s.put(b("other"), b("x"), now);
            s.flush();
            s.compact();
            List<String> raw = new ArrayList<>();
            for (Entry e : tableEntries(dir)) {
                raw.add(new String(e.key(), UTF_8) + (e.isTombstone() ? "-" : "@" + (e.expiry() == 0 ? "never" : e.expiry())));
            }
            assertThat(raw).containsExactly("live@" + (now + day), "other@never", "recent@" + (now - HOUR), "tombstoned-");
            assertThat(s.get(b("purged"))).isNull();
            assertThat(s.get(b("recent")).isTombstone()).isTrue();
            assertThat(scan(s)).containsExactly("live=v", "other=x", "recent-", "tombstoned-");
        }
    }

    @Test
    void withNoGraceAnExpiredValueIsPurgedAtTheNextCompaction() throws IOException {
        StoreOptions o = StoreOptions.defaults().withTombstoneGrace(Duration.ZERO, t -> t);
        try (LsmStore s = LsmStore.open(dir, o)) {
            long now = System.currentTimeMillis();
            s.write(List.of(Entry.value(b("a"), b("v"), now - 10, now + 300), Entry.value(b("b"), b("v"), now - 10)));
            s.flush();
            Entry a = s.get(b("a"));
            // a flush on a busy disk can take the 300 ms: then only the end is checked
            if (System.currentTimeMillis() < now + 300) assertThat(a.value()).isEqualTo(b("v"));
            while (System.currentTimeMillis() <= now + 300) sleep(50);
            assertThat(s.get(b("a")).isTombstone()).isTrue();
            s.put(b("c"), b("v"), now);
            s.flush();
            s.compact();
            assertThat(tableEntries(dir)).extracting(e -> new String(e.key(), UTF_8)).containsExactly("b", "c");
            assertThat(s.get(b("a"))).isNull();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
