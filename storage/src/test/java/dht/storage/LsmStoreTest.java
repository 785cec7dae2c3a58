package dht.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LsmStoreTest {
    @TempDir
    Path dir;

    static byte[] b(String s) { return s.getBytes(UTF_8); }

    static StoreOptions small() {
        return StoreOptions.defaults().withMemtableBytes(64 << 10).withBlockSize(512);
    }

    static List<String> keys(CloseableIterator<Entry> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                Entry e = it.next();
                out.add(new String(e.key(), UTF_8) + (e.isTombstone() ? "-" : "=" + new String(e.value(), UTF_8)));
            }
        }
        return out;
    }

    /**
     * The sizes of the tables that same-size writes flush into: equal with a fixed flush size, spread
     * over the jitter's range with one, never above the configured size.
     */
    private List<Long> flushedTableSizes(Path d, double jitter) throws IOException {
        StoreOptions o = StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC).withMemtableBytes(64 * 1024)
                .withCompaction(100, 200).withFlushJitter(jitter);
        try (LsmStore s = LsmStore.open(d, o)) {
            byte[] v = new byte[100];
            for (int i = 0; i < 20_000; i++) s.put(b(String.format("k%08d", i)), v, i + 1);
        }
        List<Path> tables;
        try (var files = java.nio.file.Files.list(d)) {
            tables = files.filter(p -> p.toString().endsWith(".sst")).sorted().toList();
        }
        List<Long> sizes = new ArrayList<>();
        for (Path t : tables.subList(0, tables.size() - 1)) sizes.add(java.nio.file.Files.size(t)); // the last: flushed at close
        return sizes;
    }

    @Test
    void withFlushJitterMemtablesAreFlushedAtSizesDrawnBelowTheLimit() throws IOException {
        List<Long> fixed = flushedTableSizes(dir.resolve("fixed"), 0);
        List<Long> jittered = flushedTableSizes(dir.resolve("jittered"), 0.25);
        assertThat(fixed).hasSizeGreaterThan(10);
        long largest = fixed.stream().mapToLong(Long::longValue).max().orElseThrow();
        long smallest = fixed.stream().mapToLong(Long::longValue).min().orElseThrow();
        // a group commit can carry a memtable a few entries past its flush size
        assertThat(largest - smallest).as("fixed flush size: %s", fixed).isLessThan(largest / 100);
        long spread = jittered.stream().mapToLong(Long::longValue).max().orElseThrow()
                - jittered.stream().mapToLong(Long::longValue).min().orElseThrow();
        assertThat(spread).as("jittered: %s", jittered).isGreaterThan(largest / 10);
        assertThat(jittered).allMatch(x -> x <= largest + largest / 100).allMatch(x -> x >= largest * 0.70);
    }

    /** A batch larger than one group commit (4 MiB) is committed in several, all by its own thread. */
    @Test
    void aBatchLargerThanOneGroupCommitIsWrittenWhole() throws IOException {
        byte[] big = new byte[100 * 1024];
        List<Entry> batch = new ArrayList<>();
        for (int i = 0; i < 60; i++) batch.add(Entry.value(b(String.format("k%03d", i)), big, 1));
        batch.add(Entry.tombstone(b("k007"), 2));
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            s.write(batch);
            assertThat(s.get(b("k059")).value()).hasSize(big.length);
            assertThat(s.get(b("k007")).isTombstone()).isTrue();
        }
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            assertThat(s.get(b("k000")).value()).hasSize(big.length);
            assertThat(s.get(b("k007")).isTombstone()).isTrue();
        }
    }

    /** What a node's clock checks at start: the newest version, in memtables and tables, across a reopen. */
    @Test
    void statsNameTheNewestTimestampInMemtablesAndTables() throws IOException {
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            assertThat(s.stats().newestTimestamp()).as("empty").isEqualTo(Long.MIN_VALUE);
            s.put(b("a"), b("1"), 700);
            s.put(b("b"), b("2"), 500);
            assertThat(s.stats().newestTimestamp()).as("in the memtable").isEqualTo(700);
            s.flush();
            s.delete(b("c"), 600);
            assertThat(s.stats().newestTimestamp()).as("in a table").isEqualTo(700);
            s.delete(b("a"), 900);
        }
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            assertThat(s.stats().newestTimestamp()).as("a tombstone replayed from the log").isEqualTo(900);
        }
    }

    @Test
    void putGetDeleteScan() throws IOException {
        try (LsmStore s = LsmStore.open(dir, small())) {
            s.put(b("a"), b("1"), 1);
            s.put(b("b"), b("2"), 1);
            s.put(b("c"), b(""), 1);
            s.delete(b("b"), 2);
            assertThat(s.get(b("a"))).isEqualTo(Entry.value(b("a"), b("1"), 1));
            assertThat(s.get(b("b")).isTombstone()).isTrue();
            assertThat(s.get(b("c")).value()).isEmpty();
            assertThat(s.get(b("zz"))).isNull();
            assertThat(keys(s.scan(b("a"), b("c")))).containsExactly("a=1", "b-");
            assertThat(keys(s.scan(b("b"), null))).containsExactly("b-", "c=");
        }
    }

    @Test
    void olderTimestampNeverReplacesNewerWhereverItLives() throws IOException {
        try (LsmStore s = LsmStore.open(dir, small())) {
            s.put(b("k"), b("new"), 10);
            s.flush();
            s.put(b("k"), b("old"), 5);
            assertThat(s.get(b("k")).value()).isEqualTo(b("new"));
            assertThat(keys(s.scan(b("k"), null))).containsExactly("k=new");
            s.flush();
            s.compact();
            assertThat(s.get(b("k")).value()).isEqualTo(b("new"));
            s.delete(b("k"), 7);
            assertThat(s.get(b("k")).value()).isEqualTo(b("new"));
        }
    }

    /**
     * Point reads consult tables by the greatest timestamp each holds and stop early; a table
     * written later is not newer for that, so a late replica write with an old timestamp must not
     * hide the newest version behind it.
     */
    /** No background compaction: each flush stays its own table, so the read order is what is tested. */
    static StoreOptions noCompaction() {
        return small().withCompaction(1000, 2000);
    }

    @Test
    void aLateOldWriteInANewerTableStillLosesToTheNewestVersion() throws IOException {
        try (LsmStore s = LsmStore.open(dir, noCompaction())) {
            s.put(b("k"), b("newest"), 100);
            s.flush();
            s.put(b("k"), b("late"), 50);
            s.put(b("other"), b("x"), 200); // this table's greatest timestamp is the highest of all
            s.flush();
            s.put(b("k"), b("older"), 40);
            s.flush();
            assertThat(s.get(b("k")).value()).isEqualTo(b("newest"));
            assertThat(s.get(b("other")).value()).isEqualTo(b("x"));
        }
    }

    /** Whichever order the tables were written in, the greatest timestamp wins. */
    @Test
    void theNewestVersionWinsWhateverOrderItsTableWasWrittenIn() throws IOException {
        long[][] orders = {{200, 10, 100}, {100, 10, 200}, {10, 200, 100}};
        for (int o = 0; o < orders.length; o++) {
            try (LsmStore s = LsmStore.open(dir.resolve("order" + o), noCompaction())) {
                for (long ts : orders[o]) {
                    s.put(b("k"), b("v" + ts), ts);
                    s.flush();
                }
                assertThat(s.get(b("k")).timestamp()).as("tables written at %s", java.util.Arrays.toString(orders[o]))
                        .isEqualTo(200);
            }
        }
    }

    /** A table's greatest timestamp is not its last key's: here the last key is the oldest. */
    @Test
    void aTableIsReadByItsGreatestTimestampNotItsLastEntry() throws IOException {
        try (LsmStore s = LsmStore.open(dir, noCompaction())) {
            s.put(b("k"), b("newest"), 300);
            s.put(b("z"), b("old"), 1);
            s.flush();
            s.put(b("k"), b("middle"), 100);
            s.flush();
            assertThat(s.get(b("k")).value()).isEqualTo(b("newest"));
        }
    }

    @Test
    void equalTimestampsInTwoTablesAreBothConsulted() throws IOException {
        try (LsmStore s = LsmStore.open(dir, noCompaction())) {
            s.put(b("t"), b("v"), 7);
            s.flush();
            s.delete(b("t"), 7); // same timestamp: the tombstone wins (Entry.supersedes), wherever it lives
            s.flush();
            assertThat(s.get(b("t")).isTombstone()).isTrue();
        }
    }

    @Test
    void equalTimestampsOfTwoValuesInTwoTablesAreBothConsulted() throws IOException {
        try (LsmStore s = LsmStore.open(dir, noCompaction())) {
            s.put(b("u"), b("a"), 8);
            s.flush();
            s.put(b("u"), b("b"), 8); // same timestamp, two values: the greater one wins
            s.flush();
            assertThat(s.get(b("u")).value()).isEqualTo(b("b"));
        }
    }

    /**
     * A table from a newer build is not damage: setting it aside as corrupt would drop its entries
     * from the manifest, so the open fails, naming it, and leaves every file where it was.
     */
    @Test
    void aTableOfANewerFormatStopsTheOpenAndIsKept() throws IOException {
        try (LsmStore s = LsmStore.open(dir, small())) {
            s.put(b("k"), b("v"), 1);
            s.flush();
        }
        Path table;
        try (var files = java.nio.file.Files.list(dir)) {
            table = files.filter(p -> p.toString().endsWith(".sst")).findFirst().orElseThrow();
        }
        byte[] f = java.nio.file.Files.readAllBytes(table);
        int footer = f.length - TableFormat.FOOTER;
        Bytes.putInt(f, footer + 32, TableFormat.VERSION + 1);
        Bytes.putInt(f, footer + 36, Bytes.crc(f, footer, 36));
        java.nio.file.Files.write(table, f);
        assertThatThrownBy(() -> LsmStore.open(dir, small()))
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(CorruptionException.class)
                .hasMessageContaining(table.getFileName().toString())
                .hasMessageContaining("newer");
        assertThat(table).exists();
        assertThat(dir.resolve(table.getFileName() + ".corrupt")).doesNotExist();

        // a check says it could not read it, and does not call it damaged
        StoreCheck.Report r = StoreCheck.of(dir).run(n -> {});
        assertThat(r.damagedTables()).isZero();
        assertThat(r.unreadableTables()).isEqualTo(1);
        assertThat(r.tables().getFirst().unreadable()).contains("newer");
        assertThat(r.intact()).isFalse();
    }

    @Test
    void unsignedKeyOrder() throws IOException {
        try (LsmStore s = LsmStore.open(dir, small())) {
            s.put(new byte[] {(byte) 0x80}, b("hi"), 1);
            s.put(new byte[] {0x01}, b("lo"), 1);
            s.flush();
            s.put(new byte[] {(byte) 0xff}, b("top"), 1);
            try (CloseableIterator<Entry> it = s.scan(new byte[0], null)) {
                assertThat(it.next().key()).containsExactly(0x01);
                assertThat(it.next().key()).containsExactly((byte) 0x80);
                assertThat(it.next().key()).containsExactly((byte) 0xff);
                assertThat(it.hasNext()).isFalse();
            }
        }
    }

    @Test
    void reopenReplaysTheLogAndKeepsFlushedTables() throws IOException {
        try (LsmStore s = LsmStore.open(dir, small())) {
            for (int i = 0; i < 2000; i++) s.put(b("key" + i), b("value" + i), i);
            s.delete(b("key7"), 10_000);
        }
        try (LsmStore s = LsmStore.open(dir, small())) {
            assertThat(s.stats().tables()).isGreaterThan(0);
            // every version in tables or replayed into the memtable (a compaction may have dropped the value the tombstone hides)
            assertThat(s.stats().entries()).isBetween(2000L, 2001L + 2000);
            for (int i = 0; i < 2000; i++) {
                Entry e = s.get(b("key" + i));
                if (i == 7) assertThat(e.isTombstone()).isTrue();
                else assertThat(e.value()).isEqualTo(b("value" + i));
            }
        }
    }

    @Test
    void secondOpenerFailsAtOnceNamingTheDirectory() throws IOException {
        try (LsmStore s = LsmStore.open(dir, small())) {
            assertThatThrownBy(() -> LsmStore.open(dir, small()))
                    .isInstanceOf(DirectoryLockedException.class)
                    .hasMessageContaining(dir.toAbsolutePath().toString());
        }
        LsmStore.open(dir, small()).close(); // released on close
    }

    @Test
    void scanKeepsItsTablesUntilClosedEvenAcrossCompactionAndClose() throws IOException {
        LsmStore s = LsmStore.open(dir, small());
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 300; i++) s.put(b(String.format("k%04d", i)), b("v" + round), round);
            s.flush();
        }
        CloseableIterator<Entry> it = s.scan(b("k"), null);
        s.compact();
        assertThat(s.stats().tables()).isEqualTo(1);
        int n = 0;
        while (it.hasNext() && n < 10) {
            assertThat(it.next().value()).isEqualTo(b("v3"));
            n++;
        }
        s.close();
        while (it.hasNext()) {
            assertThat(it.next().value()).isEqualTo(b("v3"));
            n++;
        }
        it.close();
        assertThat(n).isEqualTo(300);
    }

    /**
     * Both passes of a compaction over its inputs are held to the rate: the merge (counted in the
     * bytes of the entries it keeps) and the second checksum pass (in the bytes of the blocks). No
     * background compaction runs first, and the keys are distinct, so the bound follows from the
     * inputs alone.
     */
    @Test
    void aCompactionReadsNoFasterThanItsRateLimitInBothItsPasses() throws IOException {
        long rate = 4L << 20;
        StoreOptions o = small().withSyncPolicy(SyncPolicy.PERIODIC).withCompaction(1000, 1000).withCompactionBytesPerSecond(rate);
        try (LsmStore s = LsmStore.open(dir, o)) {
            byte[] value = new byte[1000];
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 1000; i++) s.put(b(String.format("k%d-%04d", round, i)), value, round * 1000 + i);
                s.flush();
            }
            long merged = 2000L * (TableFormat.ENTRY_HEADER + "k0-0000".length() + value.length);
            long blocks = 0; // the tables' sizes: a little more than their data blocks
            try (var tables = java.nio.file.Files.list(dir)) {
                for (Path t : tables.filter(p -> p.toString().endsWith(".sst")).toList()) blocks += java.nio.file.Files.size(t);
            }
            long t0 = System.nanoTime();
            s.compact(); // about 2 MB at 4 MB/s, twice: the merge, then the checksum pass
            long millis = (System.nanoTime() - t0) / 1_000_000;

            // the checksum pass reads the data blocks, a little less than the tables' size: 0.8 of the bound
            long bound = (long) (0.8 * (merged + blocks) * 1000 / rate);
            assertThat(millis).as("compaction time, ms (the merge alone takes about %d)", merged * 1000 / rate)
                    .isGreaterThanOrEqualTo(bound);
            assertThat(keys(s.scan(b("k"), null))).hasSize(2000);
        }
    }

    /**
     * A running compaction is still pending: its inputs are no candidates for another merge, so
     * counting only the merges due would read 0 while it runs, and whoever waits for a settled store
     * (a benchmark before its cold reads, a script before its GETs) would go on while it still merges.
     */
    @Test
    void aRunningCompactionCountsAsPendingUntilItIsInstalled() throws Exception {
        StoreOptions o = small().withSyncPolicy(SyncPolicy.PERIODIC).withCompaction(1000, 1000).withCompactionBytesPerSecond(1L << 20);
        try (LsmStore s = LsmStore.open(dir, o)) {
            byte[] value = new byte[1000];
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 1000; i++) s.put(b(String.format("k%d-%04d", round, i)), value, round * 1000 + i);
                s.flush();
            }
            assertThat(s.stats().pendingCompactions()).as("nothing due with 1000 tables needed").isZero();
            var compaction = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    s.compact(); // about 2 MB at 1 MB/s, twice
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            java.util.List<Integer> seen = new java.util.ArrayList<>();
            while (!compaction.isDone()) {
                seen.add(s.stats().pendingCompactions());
                Thread.sleep(50);
            }
            compaction.join();
            // before the merge starts and after it is installed (the future completes a moment later) 0 is right
            assertThat(seen).as("pending while merging").contains(1);
            assertThat(seen.subList(seen.indexOf(1), seen.lastIndexOf(1) + 1)).as("from the first 1 to the last").doesNotContain(0);
            assertThat(s.stats().pendingCompactions()).as("none once installed").isZero();
            assertThat(s.stats().tables()).isEqualTo(1);
        }
    }

    @Test
    void tombstonesOlderThanGraceAreDroppedOnlyWhenNothingElseHoldsTheKey() throws IOException {
        StoreOptions o = small().withTombstoneGrace(java.time.Duration.ofMillis(1), t -> t);
        long old = System.currentTimeMillis() - 60_000;
        try (LsmStore s = LsmStore.open(dir, o)) {
            s.put(b("a"), b("x"), old);
            s.flush();
            s.delete(b("a"), old + 1);
            s.delete(b("b"), old + 1);
            s.delete(b("c"), System.currentTimeMillis() + 3_600_000); // young: kept
            s.flush();
            s.compact();
            assertThat(s.get(b("a"))).isNull();
            assertThat(s.get(b("b"))).isNull();
            assertThat(s.get(b("c")).isTombstone()).isTrue();
        }
    }

    @Test
    void anInterruptedWriterDoesNotBreakTheLog() throws IOException {
        try (LsmStore s = LsmStore.open(dir, small())) {
            for (int i = 0; i < 3000; i++) {
                Thread.currentThread().interrupt();
                s.put(b("k" + i), new byte[50], 1); // fsyncs, rotations and flushes with the flag set
                assertThat(Thread.interrupted()).isTrue();
            }
            s.put(b("after"), b("ok"), 1);
            assertThat(s.get(b("after")).value()).isEqualTo(b("ok"));
        }
        try (LsmStore s = LsmStore.open(dir, small())) {
            for (int i = 0; i < 3000; i++) assertThat(s.get(b("k" + i))).isNotNull();
        }
    }

    @Test
    void statsAreFilledIn() throws IOException {
        try (LsmStore s = LsmStore.open(dir, small())) {
            for (int i = 0; i < 100; i++) s.put(b("k" + i), new byte[100], 1);
            StoreStats st = s.stats();
            assertThat(st.memtableBytes()).isGreaterThan(10_000);
            assertThat(st.walBytes()).isGreaterThan(10_000);
            s.flush();
            st = s.stats();
            assertThat(st.tables()).isEqualTo(1);
            assertThat(st.tableBytes()).isGreaterThan(10_000);
        }
    }
}
