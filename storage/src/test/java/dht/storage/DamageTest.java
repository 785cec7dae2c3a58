package dht.storage;

import static dht.storage.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Flipped bytes and truncations in logs and tables, made by editing the files directly. */
class DamageTest {
    @TempDir
    Path dir;

    private static StoreOptions opts() {
        return StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC).withBlockSize(512);
    }

    private List<Path> files(String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
    }

    private static void flip(Path p, long offset) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.seek(offset);
            int v = f.read();
            f.seek(offset);
            f.write(v ^ 0x40);
        }
    }

    private static void truncate(Path p, long size) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(size);
        }
    }

    /** Where the table's index starts, read from its footer: the data blocks end there. */
    private static long indexOffset(Path table) throws IOException {
        return footerLong(table, 0);
    }

    /** The 8-byte little-endian footer field at {@code at} bytes into the footer (docs/storage-format.md). */
    private static long footerLong(Path table, int at) throws IOException {
        try (var ch = java.nio.channels.FileChannel.open(table)) {
            java.nio.ByteBuffer f = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            ch.read(f, ch.size() - TableFormat.FOOTER + at);
            return f.flip().getLong();
        }
    }

    /** Writes a log by hand, as a killed store would leave it. */
    private Path writeLog(int records) throws IOException {
        Path log = dir.resolve("000001.log");
        try (var out = Files.newOutputStream(log)) {
            for (int i = 0; i < records; i++) out.write(LogRecord.encode(Entry.value(b("k" + i), b("v" + i), i)));
        }
        return log;
    }

    private static long recordSize(int i) { return LogRecord.encode(Entry.value(b("k" + i), b("v" + i), i)).length; }

    @Test
    void tornLogTailLosesOnlyTheTornRecord() throws IOException {
        Path log = writeLog(10);
        truncate(log, Files.size(log) - 3);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 9; i++) assertThat(s.get(b("k" + i)).value()).isEqualTo(b("v" + i));
            assertThat(s.get(b("k9"))).isNull();
        }
        // a torn tail is what a crash leaves: nothing to keep
        assertThat(files(".corrupt")).isEmpty();
    }

    private static long offsetOf(int record) {
        long off = 0;
        for (int i = 0; i < record; i++) off += recordSize(i);
        return off;
    }

    @Test
    void aFlippedByteInALogRecordLosesThatRecordOnly() throws IOException {
        Path log = writeLog(10);
        flip(log, offsetOf(5) + 12); // inside record 5's body: its CRC fails, its length still holds
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 10; i++) {
                if (i == 5) assertThat(s.get(b("k5"))).isNull();
                else assertThat(s.get(b("k" + i)).value()).as("k%d", i).isEqualTo(b("v" + i));
            }
        }
        // the damaged log is kept for inspection, under a name the store never replays again
        assertThat(files(".corrupt")).extracting(p -> p.getFileName().toString()).containsExactly("000001.log.corrupt");
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k9")).value()).isEqualTo(b("v9"));
        }
    }

    @Test
    void twoFlippedBytesInTwoLogRecordsLoseThoseTwoRecordsOnly() throws IOException {
        Path log = writeLog(20);
        flip(log, offsetOf(5) + 12); // inside record 5's body
        flip(log, offsetOf(12) + 12); // and inside record 12's
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 20; i++) {
                if (i == 5 || i == 12) assertThat(s.get(b("k" + i))).as("k%d", i).isNull();
                else assertThat(s.get(b("k" + i))).as("k%d", i).isNotNull().extracting(Entry::value).isEqualTo(b("v" + i));
            }
        }
    }

    @Test
    void aDamagedLengthAndALaterFlippedBodyLoseOnlyTheFlippedRecord() throws IOException {
        Path log = writeLog(20);
        flip(log, offsetOf(5) + 6); // record 5's length: its CRC proves the true one
        flip(log, offsetOf(12) + 12); // record 12's body: lost
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 20; i++) {
                if (i == 12) assertThat(s.get(b("k" + i))).as("k%d", i).isNull();
                else assertThat(s.get(b("k" + i))).as("k%d", i).isNotNull().extracting(Entry::value).isEqualTo(b("v" + i));
            }
        }
    }

    @Test
    void twoAdjacentFlippedRecordsLoseThoseTwoOnly() throws IOException {
        Path log = writeLog(20);
        flip(log, offsetOf(5) + 12);
        flip(log, offsetOf(6) + 12);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 20; i++) {
                if (i == 5 || i == 6) assertThat(s.get(b("k" + i))).as("k%d", i).isNull();
                else assertThat(s.get(b("k" + i))).as("k%d", i).isNotNull().extracting(Entry::value).isEqualTo(b("v" + i));
            }
        }
    }

    /** One flipped byte in every 25th record: each is lost alone, and the log is still read in one pass, not one per damage. */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void manyFlippedRecordsEachLoseOnlyThemselvesAndTheLogIsReadInLinearTime() throws IOException {
        int n = 300_000; // a walk to the end per damaged record ran past the timeout here; one walk took 3 s
        Path log = writeLog(n);
        long off = 0;
        for (int i = 0; i < n; i++) {
            if (i % 25 == 10) flip(log, off + 12);
            off += recordSize(i);
        }
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < n; i++) {
                Entry e = s.get(b("k" + i));
                if (i % 25 == 10) assertThat(e).as("k%d", i).isNull();
                else assertThat(e).as("k%d", i).isNotNull().extracting(Entry::value).isEqualTo(b("v" + i));
            }
        }
        assertThat(files(".corrupt")).hasSize(1);
    }

    @Test
    void aDamagedRecordLengthIsRepairedByTheRecordsOwnChecksum() throws IOException {
        Path log = writeLog(10);
        flip(log, offsetOf(5) + 6); // record 5's length, now 4 MiB past the end of the file
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 10; i++) assertThat(s.get(b("k" + i)).value()).as("k%d", i).isEqualTo(b("v" + i));
        }
        assertThat(files(".corrupt")).extracting(p -> p.getFileName().toString()).containsExactly("000001.log.corrupt");
    }

    @Test
    void aLengthDamagedToLessIsRepairedToo() throws IOException {
        Path log = writeLog(10);
        setLength(log, offsetOf(5), (int) recordSize(5) - LogRecord.HEADER - 3); // ends inside its own body
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 10; i++) assertThat(s.get(b("k" + i)).value()).as("k%d", i).isEqualTo(b("v" + i));
        }
    }

    @Test
    void aLengthDamagedToReachALaterRecordLosesNeitherRecord() throws IOException {
        Path log = writeLog(10);
        setLength(log, offsetOf(5), (int) (offsetOf(7) - offsetOf(5)) - LogRecord.HEADER); // skips record 6
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 10; i++) assertThat(s.get(b("k" + i)).value()).as("k%d", i).isEqualTo(b("v" + i));
        }
    }

    @Test
    void theLastRecordsDamagedLengthIsRepaired() throws IOException {
        Path log = writeLog(10);
        flip(log, offsetOf(9) + 6);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k9")).value()).isEqualTo(b("v9"));
        }
    }

    private static void setLength(Path log, long record, int length) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
            f.seek(record + 4);
            f.write(java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(length).array());
        }
    }

    /**
     * A value holding the bytes of whole log records, for keys written before it, with timestamps
     * from the far future (a log stored as a value, or a client's doing); then real writes.
     * Returns the carrier record's offset.
     */
    private long writeLogWithCarrier(Path log, int embeddedAt) throws IOException {
        return writeLogWithCarrier(log, embeddedAt, 100);
    }

    private long writeLogWithCarrier(Path log, int embeddedAt, int trailing) throws IOException {
        byte[] embedded = concat(LogRecord.encode(Entry.value(b("k5"), b("PHANTOM"), Long.MAX_VALUE / 2)),
                LogRecord.encode(Entry.value(b("k6"), b("PHANTOM"), Long.MAX_VALUE / 2)));
        byte[] value = new byte[embeddedAt + embedded.length + trailing];
        System.arraycopy(embedded, 0, value, embeddedAt, embedded.length);
        long carrier = Files.size(log);
        append(log, LogRecord.encode(Entry.value(b("carrier"), value, 50)));
        for (int i = 0; i < 3; i++) append(log, LogRecord.encode(Entry.value(b("after" + i), b("ok"), 60 + i)));
        return carrier;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    void recordsInsideAValueAreNotReplayedWhenTheValuesLengthIsDamaged() throws IOException {
        // The embedded records chain into the real ones after the carrier, so a search for the
        // first chain to the end would land on them: the carrier's own CRC places its end instead.
        Path log = writeLog(10);
        long carrier = writeLogWithCarrier(log, 16);
        flip(log, carrier + 4); // the lowest byte of the carrier's length
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k5")).value()).isEqualTo(b("v5"));
            assertThat(s.get(b("k6")).value()).isEqualTo(b("v6"));
            assertThat(s.get(b("carrier"))).isNotNull();
            for (int i = 0; i < 3; i++) assertThat(s.get(b("after" + i)).value()).isEqualTo(b("ok"));
        }
    }

    @Test
    void recordsInsideAValueAreNotReplayedWhenADamagedLengthPointsAtThem() throws IOException {
        Path log = writeLog(10);
        int embeddedAt = 16;
        // Nothing after the embedded records: they chain straight into the real records after the
        // value, so the damaged length's own end passes for rule 1.
        long carrier = writeLogWithCarrier(log, embeddedAt, 0);
        setLength(log, carrier, LogRecord.BODY_FIXED + "carrier".length() + embeddedAt);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k5")).value()).isEqualTo(b("v5"));
            assertThat(s.get(b("carrier"))).isNotNull();
            assertThat(s.get(b("after2")).value()).isEqualTo(b("ok"));
        }
    }

    private static void zero(Path p, long from, long to) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.seek(from);
            f.write(new byte[(int) (to - from)]);
        }
    }

    private static void append(Path p, byte[] bytes) throws IOException {
        Files.write(p, bytes, java.nio.file.StandardOpenOption.APPEND);
    }

    /**
     * Values of one repeated byte read as a 16.8 MB length at every offset: the search must not
     * spend its checksum budget on them and give up (it did, losing 199,996 writes of 200,000).
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void valuesThatReadAsLongLengthsDoNotMakeTheSearchGiveUp() throws IOException {
        Path log = dir.resolve("000001.log");
        byte[] ones = new byte[100];
        java.util.Arrays.fill(ones, (byte) 1);
        long third = 0;
        try (var out = new java.io.BufferedOutputStream(Files.newOutputStream(log))) {
            long at = 0;
            for (int i = 0; i < 100_000; i++) {
                if (i == 3) third = at;
                byte[] r = LogRecord.encode(Entry.value(b("k" + i), ones, 1 + i));
                out.write(r);
                at += r.length;
            }
        }
        zero(log, third, third + LogRecord.HEADER); // record 3's header: rule 2
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k3"))).isNull();
            assertThat(s.get(b("k4")).value()).isEqualTo(ones);
            assertThat(s.get(b("k99999")).value()).isEqualTo(ones);
        }
    }

    /** One flipped bit in the last record, whose value holds log records: none of them is replayed. */
    @Test
    void aFlippedBitInTheLastRecordDoesNotReplayTheRecordsInItsValue() throws IOException {
        Path log = writeLog(4);
        long carrier = writeLogWithCarrier(log, 16);
        truncate(log, carrier + LogRecord.encode(Entry.value(b("carrier"), new byte[16 + 2 * LogRecord.encode(
                Entry.value(b("k5"), b("PHANTOM"), Long.MAX_VALUE / 2)).length + 100], 50)).length); // the carrier is last
        flip(log, Files.size(log) - 50); // in its value, after the embedded records
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k5"))).isNull();
            assertThat(s.get(b("k6"))).isNull();
            assertThat(s.get(b("k3")).value()).isEqualTo(b("v3"));
        }
    }

    /** Damage, then a crash: the search past the damage accepts a chain that ends in the torn tail. */
    @Test
    void aDamagedRecordFollowedByATornTailKeepsTheRecordsBetween() throws IOException {
        Path log = writeLog(10);
        flip(log, offsetOf(5) + 12); // record 5's body
        byte[] torn = LogRecord.encode(Entry.value(b("torn"), new byte[100], 10));
        append(log, java.util.Arrays.copyOf(torn, 40));
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k5"))).isNull();
            assertThat(s.get(b("torn"))).isNull();
            for (int i : new int[] {0, 4, 6, 9}) assertThat(s.get(b("k" + i)).value()).as("k%d", i).isEqualTo(b("v" + i));
        }
    }

    /** A damaged length, then a crash's torn tail: the repaired record and those after it are kept. */
    @Test
    void aDamagedLengthThenATornTailKeepsEveryWholeRecord() throws IOException {
        Path log = writeLog(10);
        flip(log, offsetOf(5) + 6); // record 5's length, now 4 MiB longer than the file
        append(log, java.util.Arrays.copyOf(LogRecord.encode(Entry.value(b("torn"), new byte[100], 10)), 40));
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 10; i++) assertThat(s.get(b("k" + i)).value()).isEqualTo(b("v" + i));
            assertThat(s.get(b("torn"))).isNull();
        }
        assertThat(files(".corrupt")).extracting(p -> p.getFileName().toString()).containsExactly("000001.log.corrupt");
    }

    /**
     * A length damaged so that its record runs past the end, and more damage in it, so its CRC
     * proves no length (garbage over a header, say): the records after it that reach the exact end
     * are kept; the damaged one is lost.
     */
    @Test
    void aRecordRunningPastTheEndWhoseChecksumProvesNoLengthKeepsTheRecordsReachingTheExactEnd() throws IOException {
        Path log = writeLog(10);
        flip(log, offsetOf(5) + 6); // record 5's length, now 4 MiB longer than the file
        flip(log, offsetOf(5) + 12); // and its body
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k5"))).isNull();
            for (int i : new int[] {0, 4, 6, 9}) assertThat(s.get(b("k" + i)).value()).as("k%d", i).isEqualTo(b("v" + i));
        }
        assertThat(files(".corrupt")).extracting(p -> p.getFileName().toString()).containsExactly("000001.log.corrupt");
    }

    /** The same with a torn tail after it: that may be a crash's tear with any bytes in it, so nothing is guessed at. */
    @Test
    void aRecordRunningPastTheEndWhoseChecksumProvesNoLengthThenATornTailIsNotGuessedPast() throws IOException {
        Path log = writeLog(10);
        flip(log, offsetOf(5) + 6);
        flip(log, offsetOf(5) + 12);
        append(log, java.util.Arrays.copyOf(LogRecord.encode(Entry.value(b("torn"), new byte[100], 10)), 40));
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 5; i++) assertThat(s.get(b("k" + i)).value()).isEqualTo(b("v" + i));
            assertThat(s.get(b("k6"))).isNull();
        }
        assertThat(files(".corrupt")).hasSize(1);
    }

    /**
     * A flipped byte in a large value: the search inside it must neither keep an object per offset
     * (eight million of them for an 8 MiB value exhausted the heap) nor take long.
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aFlippedByteInALargeValueLosesThatRecordOnlyAndQuickly() throws IOException {
        Path log = dir.resolve("000001.log");
        byte[] big = new byte[8 << 20];
        new java.util.Random(5).nextBytes(big);
        try (var out = Files.newOutputStream(log)) {
            out.write(LogRecord.encode(Entry.value(b("big"), big, 1)));
            for (int i = 0; i < 10; i++) out.write(LogRecord.encode(Entry.value(b("k" + i), b("v" + i), 2 + i)));
        }
        flip(log, 1000);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("big"))).isNull();
            for (int i = 0; i < 10; i++) assertThat(s.get(b("k" + i)).value()).isEqualTo(b("v" + i));
        }
    }

    /**
     * A value that looks like record headers claiming 8 MiB at every eighth offset, damaged: the
     * search must not pay a checksum over 8 MiB for each of them (20 s for a 1 MiB value, growing
     * with its square); the records after it are kept.
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aValueOfLookAlikeHeadersDoesNotMakeTheSearchQuadratic() throws IOException {
        Path log = dir.resolve("000001.log");
        java.nio.ByteBuffer look = java.nio.ByteBuffer.allocate(1 << 20).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        while (look.hasRemaining()) look.putInt(1).putInt(8 << 20);
        try (var out = Files.newOutputStream(log)) {
            out.write(LogRecord.encode(Entry.value(b("looks"), look.array(), 1)));
            byte[] value = new byte[1000];
            for (int i = 0; i < 10_000; i++) out.write(LogRecord.encode(Entry.value(b("k" + i), value, 2 + i)));
        }
        flip(log, 5000);
        long t0 = System.nanoTime();
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("looks"))).isNull();
            assertThat(s.get(b("k0"))).isNotNull();
            assertThat(s.get(b("k9999"))).isNotNull();
        }
        assertThat((System.nanoTime() - t0) / 1_000_000).as("open, ms").isLessThan(5_000);
    }

    /** A zeroed stretch across a record boundary (a page never written) and zeros at the end. */
    @Test
    void aZeroedStretchAndAZeroTailLoseOnlyTheRecordsTheyCover() throws IOException {
        Path log = writeLog(10);
        zero(log, offsetOf(4) + 10, offsetOf(5) + 10);
        append(log, new byte[4096]);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k4"))).isNull();
            assertThat(s.get(b("k5"))).isNull();
            for (int i : new int[] {0, 3, 6, 9}) assertThat(s.get(b("k" + i)).value()).as("k%d", i).isEqualTo(b("v" + i));
        }
        assertThat(files(".corrupt")).hasSize(1);
    }

    /** The search past damage walks each record once: 50,000 records after it must not take minutes. */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void theSearchPastDamageIsLinearInTheLogsLength() throws IOException {
        Path log = writeLog(50_000);
        zero(log, offsetOf(1), offsetOf(1) + LogRecord.HEADER); // record 1's header: its end is unknown
        append(log, new byte[] {1, 2, 3}); // and a torn tail, so no chain reaches the exact end
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k1"))).isNull();
            assertThat(s.get(b("k0")).value()).isEqualTo(b("v0"));
            assertThat(s.get(b("k2")).value()).isEqualTo(b("v2"));
            assertThat(s.get(b("k49999")).value()).isEqualTo(b("v49999"));
        }
    }

    /** The same when the failed record's CRC is tried against every record start after it and proves none. */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void theSearchForARepairIsLinearToo() throws IOException {
        Path log = writeLog(50_000);
        flip(log, offsetOf(1) + 6); // record 1's length runs past the end
        flip(log, offsetOf(1) + 12); // and its body is damaged too
        append(log, new byte[] {1, 2, 3});
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k0")).value()).isEqualTo(b("v0"));
            assertThat(s.get(b("k2"))).isNull();
        }
    }

    /** The same when walks that may pass over a damaged record are tried and break late: each record is walked once. */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void theSearchPastASecondDamageIsLinearToo() throws IOException {
        Path log = writeLog(50_000);
        flip(log, offsetOf(1) + 6); // record 1's length runs past the end
        flip(log, offsetOf(1) + 12); // and its body is damaged too: its CRC proves nothing
        flip(log, offsetOf(40_000) + 12); // two records in a row that no walk may pass over
        flip(log, offsetOf(40_001) + 12);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k0")).value()).isEqualTo(b("v0"));
            assertThat(s.get(b("k40001"))).isNull();
            assertThat(s.get(b("k49999")).value()).isEqualTo(b("v49999"));
        }
    }

    @Test
    void aLogRecordInsideAValueIsNeverReplayedFromATornTail() throws IOException {
        // A value that holds the bytes of a whole log record (say, a log file stored as a value),
        // its write torn by a crash right after them: the embedded record is intact but nobody
        // wrote it, so replay must not resume there.
        byte[] embedded = LogRecord.encode(Entry.value(b("phantom"), b("never written"), 99));
        byte[] host = new byte[embedded.length + 100];
        System.arraycopy(embedded, 0, host, 10, embedded.length);
        Path log = writeLog(3);
        byte[] carrier = LogRecord.encode(Entry.value(b("carrier"), host, 50));
        try (var out = Files.newOutputStream(log, java.nio.file.StandardOpenOption.APPEND)) {
            out.write(carrier);
        }
        long carrierStart = offsetOf(3);
        int valueStart = LogRecord.HEADER + LogRecord.BODY_FIXED + "carrier".length();
        truncate(log, carrierStart + valueStart + 10 + embedded.length + 20);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 3; i++) assertThat(s.get(b("k" + i)).value()).isEqualTo(b("v" + i));
            assertThat(s.get(b("carrier"))).isNull();
            assertThat(s.get(b("phantom"))).isNull();
        }
    }

    /** Every file name in the directory, to show an open changed nothing. */
    private List<String> listing() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.equals("LOCK")).sorted().toList();
        }
    }

    @Test
    void aMissingTableFailsTheOpenTouchingNothingAndPuttingItBackServesEverything(@TempDir Path elsewhere) throws IOException {
        writeTwoTables();
        Path table = files(".sst").getFirst();
        Path away = elsewhere.resolve("moved-away.sst");
        Files.move(table, away);
        List<String> before = listing();
        assertThatThrownBy(() -> LsmStore.open(dir, opts()))
                .isInstanceOf(MissingFilesException.class)
                .hasMessageContaining(table.getFileName().toString())
                .hasMessageContaining("nothing was changed");
        assertThat(listing()).isEqualTo(before);
        Files.move(away, table);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("a0000")).value()).isEqualTo(b("value-a-0"));
            assertThat(s.get(b("b0499")).value()).isEqualTo(b("value-b-499"));
        }
    }

    @Test
    void aMissingTableIsGoneWithoutWhenTheOperatorAcceptsTheLoss() throws IOException {
        writeTwoTables();
        Files.delete(files(".sst").getFirst()); // the a-keys' table
        try (LsmStore s = LsmStore.open(dir, opts().withMissingTablesAccepted(true))) {
            assertThat(s.get(b("a0000"))).isNull();
            assertThat(s.get(b("b0499")).value()).isEqualTo(b("value-b-499"));
        }
        try (LsmStore s = LsmStore.open(dir, opts())) { // the new manifest no longer names it
            assertThat(s.get(b("b0000")).value()).isEqualTo(b("value-b-0"));
        }
    }

    /**
     * The log the manifest names holds the writes not yet in a table: a store that opened without
     * it served as if they had never been acknowledged, and said nothing (a black-box audit lost
     * 500 acknowledged writes that way). The open fails touching nothing, like a missing table.
     */
    @Test
    void aMissingLogFailsTheOpenTouchingNothingUnlessTheOperatorAcceptsTheLoss(@TempDir Path elsewhere) throws IOException {
        writeTwoTables();
        Path log = files(".log").getFirst();
        Path away = elsewhere.resolve("moved-away.log");
        Files.move(log, away);
        List<String> before = listing();
        assertThatThrownBy(() -> LsmStore.open(dir, opts()))
                .isInstanceOf(MissingFilesException.class)
                .hasMessageContaining("log " + log.getFileName() + " named by the manifest is missing")
                .hasMessageContaining("nothing was changed")
                .satisfies(e -> assertThat(((MissingFilesException) e).acceptable()).isTrue());
        assertThat(listing()).isEqualTo(before);
        try (LsmStore s = LsmStore.open(dir, opts().withMissingTablesAccepted(true))) {
            assertThat(s.get(b("a0000")).value()).isEqualTo(b("value-a-0"));
        }
        try (LsmStore s = LsmStore.open(dir, opts())) { // the new manifest names the new log
            assertThat(s.get(b("b0499")).value()).isEqualTo(b("value-b-499"));
        }
    }

    @Test
    void tablesWithoutAManifestFailTheOpenInsteadOfBeingDeletedAsLeftovers(@TempDir Path elsewhere) throws IOException {
        writeTwoTables();
        Path manifest = dir.resolve("MANIFEST");
        Path away = elsewhere.resolve("MANIFEST.away");
        Files.move(manifest, away);
        List<String> before = listing();
        assertThatThrownBy(() -> LsmStore.open(dir, opts()))
                .isInstanceOf(MissingFilesException.class)
                .hasMessageContaining("no MANIFEST")
                .satisfies(e -> assertThat(((MissingFilesException) e).acceptable()).as("no option opens it").isFalse());
        assertThat(listing()).isEqualTo(before);
        Files.move(away, manifest);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("a0001")).value()).isEqualTo(b("value-a-1"));
        }
    }

    private void writeTwoTables() throws IOException {
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 500; i++) s.put(b(String.format("a%04d", i)), b("value-a-" + i), 1);
            s.flush();
            for (int i = 0; i < 500; i++) s.put(b(String.format("b%04d", i)), b("value-b-" + i), 1);
        }
        assertThat(files(".sst")).hasSize(2);
    }

    /** StoreCheck reads every block now, while the store is open, and names each damaged table. */
    @Test
    void aCheckFindsEveryDamagedTableWhileTheStoreIsOpen() throws IOException {
        writeTwoTables();
        List<Path> tables = files(".sst");
        long last = indexOffset(tables.getLast()) - 10;
        flip(tables.getLast(), last); // the last data block: no read has needed it
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("a0001")).value()).isEqualTo(b("value-a-1"));
            StoreCheck check = StoreCheck.of(dir);
            assertThat(check.tableCount()).isEqualTo(2);
            long[] checked = {0};
            StoreCheck.Report r = check.run(n -> checked[0] += n);
            assertThat(r.damagedTables()).isEqualTo(1);
            assertThat(r.intact()).isFalse();
            assertThat(r.tables()).extracting(StoreCheck.TableResult::file).containsExactlyElementsOf(tables);
            assertThat(r.tables().getFirst().intact()).isTrue();
            assertThat(r.tables().getLast().problems()).singleElement().asString().startsWith("1 of ")
                    .contains(tables.getLast().toString()).contains("checksum mismatch");
            assertThat(checked[0]).as("progress ends at the total").isEqualTo(check.totalBytes());
            assertThat(s.get(b("a0002")).value()).as("the store open beside the check is untouched").isEqualTo(b("value-a-2"));
        }
    }

    @Test
    void aCheckNamesADamagedFooterAndRefusesADamagedManifest() throws IOException {
        writeTwoTables();
        Path table = files(".sst").getFirst();
        flip(table, Files.size(table) - 10);
        StoreCheck.Report r = StoreCheck.of(dir).run(n -> {});
        assertThat(r.damagedTables()).isEqualTo(1);
        assertThat(r.tables().getFirst().problems()).singleElement().asString().contains("footer").contains("salvages");

        flip(dir.resolve(Manifest.NAME), 14);
        assertThatThrownBy(() -> StoreCheck.of(dir)).isInstanceOf(CorruptionException.class).hasMessageContaining("manifest checksum");
        assertThatThrownBy(() -> StoreCheck.of(dir.resolve("nothing"))).isInstanceOf(java.nio.file.NoSuchFileException.class);
    }

    /** Every damaged block is counted, not only the first; a damaged bloom filter or stats region is named too. */
    @Test
    void aCheckCountsEveryDamagedBlockAndNamesDamageThatCostsOnlySpeed() throws IOException {
        writeTwoTables();
        Path table = files(".sst").getFirst();
        long footer = Files.size(table) - TableFormat.FOOTER;
        long bloomOffset = footerLong(table, 12);
        flip(table, 30);                                // first data block
        flip(table, indexOffset(table) - 10);           // last data block
        flip(table, bloomOffset + 20);                  // bloom filter
        flip(table, footer - TableFormat.STATS + 2);    // stats region
        StoreCheck.Report r = StoreCheck.of(dir).run(n -> {});
        assertThat(r.damagedTables()).isEqualTo(1);
        assertThat(r.tables().getFirst().problems()).hasSize(3)
                .anySatisfy(p -> assertThat(p).startsWith("bloom filter damaged"))
                .anySatisfy(p -> assertThat(p).startsWith("stats region checksum mismatch"))
                .anySatisfy(p -> assertThat(p).startsWith("2 of ").contains("data blocks damaged"));
        assertThat(r.tables().getLast().intact()).isTrue();
    }

    /**
     * Beside a running node, a table a compaction deletes after the check read the MANIFEST is
     * replaced, not missing; a table a start stopped salvaging, the oldest log gone: each named.
     */
    @Test
    void aCheckTellsAReplacedTableFromAMissingOneAndNamesAMissingLog() throws IOException {
        writeTwoTables();
        List<Path> tables = files(".sst");
        FaultyFiles faulty = new FaultyFiles();
        Manifest m = Manifest.read(faulty, dir);
        faulty.beforeMap = p -> {
            if (!p.equals(tables.getFirst())) return;
            try { // what a compaction does: a MANIFEST without it, then the file deleted
                new Manifest(m.nextFile(), m.logNumber(), m.tables().subList(1, 2)).write(NioStorageFiles.INSTANCE, dir);
                Files.delete(p);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        StoreCheck.Report r = StoreCheck.of(dir, faulty).run(n -> {});
        assertThat(r.intact()).isTrue();
        assertThat(r.replacedTables()).isEqualTo(1);
        assertThat(r.tables().getFirst().replaced()).isTrue();

        m.write(NioStorageFiles.INSTANCE, dir); // names the deleted table again: now it is missing
        Files.move(tables.getLast(), tables.getLast().resolveSibling(tables.getLast().getFileName() + ".corrupt"));
        Files.delete(FileNames.log(dir, m.logNumber()));
        r = StoreCheck.of(dir).run(n -> {});
        assertThat(r.tables().getFirst().problems()).singleElement().asString().startsWith("missing");
        assertThat(r.tables().getLast().problems()).singleElement().asString().contains("the next start salvages it");
        assertThat(r.setAside()).as("not set aside yet: its salvage is still to come").isEmpty();
        assertThat(r.problems()).singleElement().asString().contains("named by the MANIFEST is missing");
    }

    @Test
    void flippedByteInTableBlockIsReportedAndNeverServed() throws IOException {
        writeTwoTables();
        Path first = files(".sst").getFirst();
        flip(first, 30); // inside the first data block (keys a0000...)
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.stats().damagedTables()).as("before any read finds it").isZero();
            assertThatThrownBy(() -> s.get(b("a0000")))
                    .isInstanceOf(CorruptionException.class)
                    .hasMessageContaining(first.getFileName().toString())
                    .hasMessageContaining("offset 0");
            assertThat(s.stats().damagedTables()).as("what an operator sees in /v0/status").isEqualTo(1);
            // Everything provably intact is still served.
            assertThat(s.get(b("a0499")).value()).isEqualTo(b("value-a-499"));
            for (int i = 0; i < 500; i++) {
                assertThat(s.get(b(String.format("b%04d", i))).value()).isEqualTo(b("value-b-" + i));
            }
            // A scan that reaches the damaged block fails, naming the file: skipping it could let an
            // older version (or a deleted key) from another table through, and a client could not
            // tell the answer was short. A scan of an intact range is served.
            assertThatThrownBy(() -> {
                try (CloseableIterator<Entry> it = s.scan(new byte[0], null)) {
                    while (it.hasNext()) {
                        Entry e = it.next();
                        String k = new String(e.key());
                        assertThat(new String(e.value())).isEqualTo("value-" + k.charAt(0) + "-" + Integer.parseInt(k.substring(1)));
                    }
                }
            }).isInstanceOf(java.io.UncheckedIOException.class)
                    .hasCauseInstanceOf(CorruptionException.class)
                    .hasMessageContaining(first.getFileName().toString());
            int n = 0;
            try (CloseableIterator<Entry> it = s.scan(b("b"), null)) {
                while (it.hasNext()) {
                    Entry e = it.next();
                    assertThat(new String(e.value())).isEqualTo("value-b-" + Integer.parseInt(new String(e.key()).substring(1)));
                    n++;
                }
            }
            assertThat(n).isEqualTo(500);
            // Compaction must not drop the damaged table's data: it refuses and leaves the table.
            s.compact();
            assertThat(Files.exists(first)).isTrue();
            assertThat(s.get(b("b0000")).value()).isEqualTo(b("value-b-0"));
        }
    }

    /**
     * Damage that comes after a block was read once (the disk rots under the page cache, which then
     * drops the page and reads it again): the table is mapped, so the bytes change under an open
     * store. The next read of the block still finds it, and compaction refuses to copy the damaged
     * value into a new table under a fresh, valid checksum, where nothing could detect it again.
     */
    @Test
    void damageToABlockAlreadyReadIsFoundByTheNextReadAndNeverCompactedIn() throws IOException {
        writeTwoTables();
        Path first = files(".sst").getFirst();
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("a0001")).value()).isEqualTo(b("value-a-1")); // its block passes its checksum
            flip(first, 30); // a0000's entry, in that block
            assertThatThrownBy(s::compact).isInstanceOf(IOException.class).hasMessageContaining("compaction failed");
            assertThat(Files.exists(first)).as("the damaged table stays as it is").isTrue();
            assertThatThrownBy(() -> s.get(b("a0000"))).isInstanceOf(CorruptionException.class)
                    .hasMessageContaining(first.getFileName().toString());
            assertThatThrownBy(() -> s.get(b("a0001"))).as("the whole block is suspect").isInstanceOf(CorruptionException.class);
            assertThat(s.get(b("b0001")).value()).isEqualTo(b("value-b-1"));
        }
    }

    /**
     * Damage that comes while a compaction runs, to a block it has already copied from: the
     * compaction checks its inputs again before anything names its output, and aborts.
     * The compaction is slowed (10 KB/s of input, about 3 s here) so that the damage lands midway.
     */
    @Test
    void damageToAnInputBlockAlreadyCopiedAbortsTheCompaction() throws Exception {
        writeTwoTables();
        Path first = files(".sst").getFirst();
        try (LsmStore s = LsmStore.open(dir, opts().withCompactionBytesPerSecond(10_000))) {
            var compaction = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    s.compact();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            Thread.sleep(1500); // a0000's block, the first merged, is copied by now; the b-keys are not done
            assertThat(compaction).as("still merging").isNotDone();
            flip(first, 30);
            assertThatThrownBy(compaction::join).hasMessageContaining("compaction failed");
            assertThat(files(".sst")).as("both inputs kept, no output").hasSize(2).contains(first);
            assertThatThrownBy(() -> s.get(b("a0000"))).isInstanceOf(CorruptionException.class);
        }
    }

    @Test
    void compactionRefusesToMergeADamagedTableAndLosesNothing() throws IOException {
        writeTwoTables();
        Path first = files(".sst").getFirst();
        flip(first, 30);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            // meets the damage mid-merge: aborts, keeps both inputs, and says it did not compact
            assertThatThrownBy(s::compact).isInstanceOf(IOException.class).hasMessageContaining("compaction failed");
            assertThat(files(".sst")).hasSize(2);
            assertThat(s.get(b("a0499")).value()).isEqualTo(b("value-a-499"));
            assertThat(s.get(b("b0499")).value()).isEqualTo(b("value-b-499"));
            s.compact(); // the damaged table is now left out; the intact one is rewritten alone
            assertThat(Files.exists(first)).isTrue();
            assertThat(s.get(b("b0000")).value()).isEqualTo(b("value-b-0"));
        }
    }

    /** Cutting the footer off loses nothing: every data block still carries its own checksum. */
    @Test
    void tableWithoutItsFooterKeepsEveryEntry() throws IOException {
        writeTwoTables();
        Path first = files(".sst").getFirst();
        truncate(first, Files.size(first) - 10);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 500; i++) {
                assertThat(s.get(b(String.format("a%04d", i))).value()).isEqualTo(b("value-a-" + i));
                assertThat(s.get(b(String.format("b%04d", i))).value()).isEqualTo(b("value-b-" + i));
            }
        }
        assertThat(dir.resolve(first.getFileName() + ".corrupt")).exists();
        assertThat(first).doesNotExist();
    }

    /**
     * A table cut in the middle keeps the blocks before the cut, and nothing else: past the cut
     * there is nothing to prove, and a key it lost reads as absent, never as a wrong value.
     */
    @Test
    void tableCutInTheMiddleKeepsTheBlocksBeforeTheCut() throws IOException {
        writeTwoTables();
        Path first = files(".sst").getFirst();
        long cut = indexOffset(first) / 2; // the middle of the data blocks
        truncate(first, cut);
        int kept = 0;
        try (LsmStore s = LsmStore.open(dir, opts())) {
            for (int i = 0; i < 500; i++) {
                Entry e = s.get(b(String.format("a%04d", i)));
                if (e == null) break;
                assertThat(e.value()).isEqualTo(b("value-a-" + i));
                kept++;
            }
            for (int i = kept; i < 500; i++) assertThat(s.get(b(String.format("a%04d", i)))).isNull();
            assertThat(s.get(b("b0001")).value()).isEqualTo(b("value-b-1"));
        }
        // The entries of the blocks wholly before the cut: 38-40 bytes each, and a 4-byte checksum
        // per block of 512 bytes or a little more; the block the cut went through is lost.
        assertThat(kept).isBetween((int) ((cut - 600) / 44), (int) (cut / 38));
        assertThat(dir.resolve(first.getFileName() + ".corrupt")).exists();
    }

    /** Without an index, a damaged data block ends the salvage: the blocks after it cannot be found. */
    @Test
    void damagedFooterAndDamagedBlockKeepTheBlocksBeforeTheDamage() throws IOException {
        writeTwoTables();
        Path first = files(".sst").getFirst();
        flip(first, Files.size(first) - 4); // the footer's magic number
        flip(first, 2000); // a data block near the start
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("a0000")).value()).isEqualTo(b("value-a-0"));
            assertThat(s.get(b("a0499"))).isNull();
            assertThat(s.get(b("b0499")).value()).isEqualTo(b("value-b-499"));
        }
        assertThat(dir.resolve(first.getFileName() + ".corrupt")).exists();
    }

    /**
     * The index is also bytes followed by their CRC32C, and its first keys come from clients: read
     * as entries, a crafted key can make it pass for a block (here two entries, keys "z" and "~",
     * whose values and timestamps are index bytes). With the footer gone the walk must recognise
     * the index and stop there.
     */
    @Test
    void theIndexIsNeverTakenForADataBlock() throws IOException {
        byte[] crafted = new byte[60];
        java.util.Arrays.fill(crafted, (byte) 'a');
        crafted[12] = 'z';
        Bytes.putInt(crafted, 21, 1);
        Bytes.putInt(crafted, 25, 26);
        crafted[45] = '~';
        try (LsmStore s = LsmStore.open(dir, opts())) {
            s.put(crafted, b("v1"), 1);
            s.put(b("ab"), b("v2"), 1);
            s.put(b("ac"), b("v3"), 1);
        }
        Path table = files(".sst").getFirst();
        truncate(table, Files.size(table) - 10);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(crafted).value()).isEqualTo(b("v1"));
            assertThat(s.get(b("ac")).value()).isEqualTo(b("v3"));
            assertThat(s.get(b("z"))).isNull();
            assertThat(s.get(b("~"))).isNull();
            assertThat(count(s)).isEqualTo(3);
        }
    }

    /**
     * An open that set a damaged table aside and stopped before writing its manifest (a crash)
     * leaves a manifest naming a table that is now only there as .corrupt: the next open salvages
     * it from there, and nothing is lost.
     */
    @Test
    void aTableSetAsideByAnInterruptedOpenIsSalvagedAgain() throws IOException {
        writeTwoTables();
        Path first = files(".sst").getFirst();
        truncate(first, Files.size(first) - 10);
        Files.move(first, dir.resolve(first.getFileName() + ".corrupt"));
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(count(s)).isEqualTo(1000);
        }
        assertThat(dir.resolve(first.getFileName() + ".corrupt")).exists();
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(count(s)).isEqualTo(1000);
        }
    }

    /** Too short to hold even one entry: nothing to salvage, the file is kept aside, the rest served. */
    @Test
    void aTableOfAFewBytesIsSetAsideAndTheRestIsServed() throws IOException {
        writeTwoTables();
        Path first = files(".sst").getFirst();
        truncate(first, 10);
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("a0000"))).isNull();
            assertThat(count(s)).isEqualTo(500);
        }
        assertThat(dir.resolve(first.getFileName() + ".corrupt")).exists();
    }

    private static int count(LsmStore s) throws IOException {
        int n = 0;
        try (CloseableIterator<Entry> it = s.scan(new byte[0], null)) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    /** Every entry is still under its block's checksum: only the filter is lost, and reads look inside. */
    @Test
    void flippedByteInTheBloomFilterCostsTheFilterNotTheTable() throws IOException {
        writeTwoTables();
        Path second = files(".sst").get(1);
        flip(second, Files.size(second) - TableFormat.FOOTER - TableFormat.STATS - 20); // inside the bloom filter
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("a0001")).value()).isEqualTo(b("value-a-1"));
            assertThat(s.get(b("b0001")).value()).isEqualTo(b("value-b-1"));
            assertThat(s.get(b("b0499")).value()).isEqualTo(b("value-b-499"));
            assertThat(s.get(b("b9999"))).isNull();
        }
        assertThat(dir.resolve(second.getFileName() + ".corrupt")).doesNotExist();
        Table t = Table.open(NioStorageFiles.INSTANCE, second, 0);
        t.retain();
        try {
            // a working filter would say "absent" to nearly all of these
            for (int i = 0; i < 200; i++) assertThat(t.mightContain(b("absent-" + i))).isTrue();
        } finally {
            t.release();
        }
    }

    /** Without its greatest timestamp the table is never skipped, so nothing is lost either. */
    @Test
    void flippedByteInTableStatsCostsTheStatsNotTheTable() throws IOException {
        writeTwoTables();
        Path second = files(".sst").get(1);
        flip(second, Files.size(second) - TableFormat.FOOTER - TableFormat.STATS + 3); // its greatest timestamp
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("a0001")).value()).isEqualTo(b("value-a-1"));
            assertThat(s.get(b("b0001")).value()).isEqualTo(b("value-b-1"));
        }
        assertThat(dir.resolve(second.getFileName() + ".corrupt")).doesNotExist();
    }

    /**
     * The index only locates blocks; the entries are all still under their blocks' checksums. The
     * table is rebuilt from them, the damaged file kept aside, and the next open finds nothing to do.
     */
    @Test
    void flippedByteInTheIndexCostsNoEntry() throws IOException {
        writeTwoTables();
        Path second = files(".sst").get(1);
        flip(second, indexOffset(second) + 6); // inside the first index entry
        for (int open = 0; open < 2; open++) {
            try (LsmStore s = LsmStore.open(dir, opts())) {
                for (int i = 0; i < 500; i++) {
                    assertThat(s.get(b(String.format("a%04d", i))).value()).isEqualTo(b("value-a-" + i));
                    assertThat(s.get(b(String.format("b%04d", i))).value()).isEqualTo(b("value-b-" + i));
                }
                assertThat(s.get(b("b9999"))).isNull();
                assertThat(count(s)).isEqualTo(1000);
            }
            assertThat(files(".sst")).hasSize(2);
            assertThat(files(".corrupt")).containsExactly(dir.resolve(second.getFileName() + ".corrupt"));
        }
    }

    /**
     * The damage here is the witness: a point read that found a version at timestamp 10 has no
     * reason to open a table whose entries are all at 5 or older, so it never meets that table's
     * damaged block. A read the older table could answer still meets it.
     */
    @Test
    void aPointReadNeverOpensATableThatCannotHoldANewerVersion() throws IOException {
        try (LsmStore s = LsmStore.open(dir, opts())) {
            s.put(b("j"), b("only-old"), 5);
            s.put(b("k"), b("old"), 5);
            s.flush();
            s.put(b("k"), b("new"), 10);
            s.flush();
        }
        assertThat(files(".sst")).hasSize(2);
        Path older = files(".sst").getFirst();
        flip(older, 2); // inside its only data block
        try (LsmStore s = LsmStore.open(dir, opts())) {
            assertThat(s.get(b("k")).value()).isEqualTo(b("new"));
            assertThatThrownBy(() -> s.get(b("j"))).isInstanceOf(CorruptionException.class);
        }
    }

    @Test
    void corruptManifestFailsOpenClearly() throws IOException {
        writeTwoTables();
        flip(dir.resolve("MANIFEST"), 14);
        assertThatThrownBy(() -> LsmStore.open(dir, opts()))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("MANIFEST");
        // The lock was released: after repair (here: restoring nothing) a new open is possible.
        flip(dir.resolve("MANIFEST"), 14);
        List<String> got = new ArrayList<>();
        try (LsmStore s = LsmStore.open(dir, opts()); CloseableIterator<Entry> it = s.scan(new byte[0], null)) {
            while (it.hasNext()) got.add(new String(it.next().key()));
        }
        assertThat(got).hasSize(1000);
    }
}
