package dht.storage;

import static dht.storage.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damaged and torn logs: every record before the damage and every whole record after it is
 * replayed (after the damaged block, when the damage leaves no way to tell where the next fragment
 * in it starts), the count is reported, and the log is kept as {@code .corrupt} only when intact
 * fragments follow the damage (a torn tail is a crash's normal trace).
 */
class WalDamageTest {
    private static final int BLOCK = LogFormat.BLOCK;

    @TempDir
    Path dir;

    @RegisterExtension
    final LogCapture lines = new LogCapture(WalReader.class);

    private List<String> logged() {
        return lines.events().stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    private Path log() { return dir.resolve("000001.log"); }

    private static Entry small(int i) {
        return Entry.value(b("k" + i), b(("v" + i + "-").repeat(40)), i);
    }

    /** Writes {@code n} records of about 230 bytes (some 140 a block); returns their starts, then the size. */
    private long[] writeSmall(int n) throws IOException {
        return WalFiles.write(log(), IntStream.range(0, n).mapToObj(WalDamageTest::small).toList());
    }

    private static void flip(Path p, long offset) throws IOException {
        flip(p, offset, 0x40);
    }

    private static void flip(Path p, long offset, int mask) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.seek(offset);
            int v = f.read();
            f.seek(offset);
            f.write(v ^ mask);
        }
    }

    private static void zero(Path p, long from, long to) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.seek(from);
            f.write(new byte[(int) (to - from)]);
        }
    }

    private static void truncate(Path p, long size) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(size);
        }
    }

    /** The first record starting at or after {@code offset}. */
    private static int firstFrom(long[] starts, long offset) {
        int i = 0;
        while (starts[i] < offset) i++;
        return i;
    }

    private static List<String> keys(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "k" + i).toList();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return Stream.concat(a.stream(), b.stream()).toList();
    }

    private List<String> files(String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(suffix)).sorted().toList();
        }
    }

    @Test
    void aFlippedByteInARecordLosesThatRecordOnly() throws IOException {
        long[] starts = writeSmall(600);
        int hit = firstFrom(starts, BLOCK + 1000);
        flip(log(), starts[hit] + 40); // in record hit's payload, in block 1
        int resumed = hit + 1;

        WalFiles.Replayed r = WalFiles.replay(log());
        assertThat(r.keys()).isEqualTo(concat(keys(0, hit), keys(resumed, 600)));
        assertThat(r.outcome()).isEqualTo(new WalReader.Outcome(599, starts[resumed] - starts[hit], true));
        assertThat(logged()).containsExactly(
                "log " + log() + ": DAMAGED: checksum mismatch at offset " + starts[hit] + "; skipped " + (starts[resumed] - starts[hit])
                        + " bytes to the next record at offset " + starts[resumed] + " (the file will be kept as 000001.log.corrupt)",
                "log " + log() + ": replayed " + r.outcome().records() + " records, skipped " + r.outcome().skippedBytes() + " bytes");
    }

    /** A small log, all in its one block: damage there is no torn tail, and the records after it are kept. */
    @Test
    void aFlippedByteInTheLastBlockLosesItsRecordOnlyAndIsDamage() throws IOException {
        long[] starts = writeSmall(50);
        flip(log(), starts[10] + 100);
        WalFiles.Replayed r = WalFiles.replay(log());
        assertThat(r.keys()).isEqualTo(concat(keys(0, 10), keys(11, 50)));
        assertThat(r.outcome()).isEqualTo(new WalReader.Outcome(49, starts[11] - starts[10], true));
        // the checksum field itself, and the type byte it covers, likewise
        for (long at : new long[] {starts[20] + 1, starts[20] + 6}) {
            writeSmall(50);
            flip(log(), at);
            assertThat(WalFiles.replay(log()).keys()).as("flip at %d", at).isEqualTo(concat(keys(0, 20), keys(21, 50)));
        }
        // the last record: nothing intact after it, so a torn tail as a crash leaves
        writeSmall(50);
        flip(log(), starts[49] + 100);
        r = WalFiles.replay(log());
        assertThat(r.keys()).isEqualTo(keys(0, 49));
        assertThat(r.outcome().damaged()).isFalse();
    }

    /** Two damaged fragments in one block: where the first one's length leads is not intact to the block's end. */
    @Test
    void twoFlipsInOneBlockLoseTheRestOfItFromTheFirst() throws IOException {
        long[] starts = writeSmall(600);
        int hit = firstFrom(starts, BLOCK + 1000);
        flip(log(), starts[hit] + 40);
        flip(log(), starts[hit + 5] + 40);
        int resumed = firstFrom(starts, 2L * BLOCK);
        WalFiles.Replayed r = WalFiles.replay(log());
        assertThat(r.keys()).isEqualTo(concat(keys(0, hit), keys(resumed, 600)));
        assertThat(r.outcome().damaged()).isTrue();
    }

    @Test
    void aDamagedLengthLosesTheRestOfItsBlockOnly() throws IOException {
        long[] starts = writeSmall(600);
        int hit = firstFrom(starts, BLOCK + 1000);
        flip(log(), starts[hit] + 5, 0xFF); // the length's high byte: past its block
        int resumed = firstFrom(starts, 2L * BLOCK);
        WalFiles.Replayed r = WalFiles.replay(log());
        assertThat(r.keys()).isEqualTo(concat(keys(0, hit), keys(resumed, 600)));
        assertThat(r.outcome().damaged()).isTrue();
        assertThat(logged().getFirst()).contains("DAMAGED: bad fragment length");
    }

    @Test
    void aTornBlockLosesTheRecordsItTouchesAndNoLaterOne() throws IOException {
        long[] starts = writeSmall(600);
        zero(log(), BLOCK + BLOCK / 2, 2L * BLOCK); // the second half of block 1 never reached the disk
        int hit = firstFrom(starts, BLOCK + BLOCK / 2) - 1; // the record the zeros begin in
        int resumed = firstFrom(starts, 2L * BLOCK);
        WalFiles.Replayed r = WalFiles.replay(log());
        assertThat(r.keys()).isEqualTo(concat(keys(0, hit), keys(resumed, 600)));
        assertThat(r.outcome().records()).isEqualTo(600 - (resumed - hit));
        assertThat(r.outcome().damaged()).isTrue();
    }

    @Test
    void aWholeBlockOfZerosInTheMiddleLosesOnlyThatBlock() throws IOException {
        long[] starts = writeSmall(600);
        zero(log(), BLOCK, 2L * BLOCK);
        int hit = firstFrom(starts, BLOCK);
        int resumed = firstFrom(starts, 2L * BLOCK);
        // a record spanning blocks 0 and 1 is lost too: hit - 1 if it did not end in block 0
        int lostFrom = starts[hit] == BLOCK ? hit : hit - 1;
        WalFiles.Replayed r = WalFiles.replay(log());
        assertThat(r.keys()).isEqualTo(concat(keys(0, lostFrom), keys(resumed, 600)));
        assertThat(r.outcome().damaged()).isTrue();
    }

    @Test
    void aTruncatedTailLosesOnlyTheTornRecordAndIsNoDamage() throws IOException {
        long[] starts = writeSmall(300);
        for (long cut : new long[] {starts[300] - 3, starts[299] + 3, starts[299] + 10, starts[150] + 1}) {
            writeSmall(300);
            truncate(log(), cut);
            int torn = firstFrom(starts, cut + 1) - 1;
            lines.events().clear();
            WalFiles.Replayed r = WalFiles.replay(log());
            assertThat(r.keys()).as("cut at %d", cut).isEqualTo(keys(0, torn));
            assertThat(r.outcome()).isEqualTo(new WalReader.Outcome(torn, cut - starts[torn], false));
            assertThat(logged().getFirst()).as("cut at %d", cut).startsWith("log " + log() + ": torn fragment")
                    .endsWith("; dropping the tail (" + (cut - starts[torn]) + " bytes, no intact record after it)");
        }
    }

    @Test
    void aRecordSpanningSeveralBlocksIsLostWholeAndWhatFollowsItsDamagedBlockIsKept() throws IOException {
        List<Entry> written = new ArrayList<>();
        for (int i = 0; i < 3; i++) written.add(small(i));
        written.add(Entry.value(b("big"), new byte[100_000], 3)); // FIRST in block 0, MIDDLE 1 and 2, LAST in 3
        for (int i = 4; i < 400; i++) written.add(small(i));
        long[] starts = WalFiles.write(log(), written);
        flip(log(), BLOCK + 100); // a MIDDLE of big
        WalFiles.Replayed r = WalFiles.replay(log());
        List<String> all = written.stream().map(e -> new String(e.key())).toList();
        assertThat(r.keys()).isEqualTo(all.stream().filter(k -> !k.equals("big")).toList());
        assertThat(r.outcome().damaged()).isTrue();
        assertThat(r.outcome().skippedBytes()).isEqualTo(starts[4] - starts[3]);

        // damage in its LAST fragment loses it alone: its length leads to the intact records after it
        WalFiles.write(log(), written);
        flip(log(), 3L * BLOCK + 10);
        assertThat(WalFiles.replay(log()).keys()).isEqualTo(all.stream().filter(k -> !k.equals("big")).toList());
    }

    @Test
    void recordsExactlyFillingBlocksAndShortBlockTailsSurviveDamageNextToThem() throws IOException {
        // k0 fills block 0 exactly, k1 leaves a 3-byte tail in block 1, k2 starts block 2
        int fill = LogFormat.MAX_PAYLOAD - LogRecord.BODY_FIXED - 2;
        List<Entry> written = List.of(Entry.value(b("k0"), new byte[fill], 0), Entry.value(b("k1"), new byte[fill - 3], 1),
                Entry.value(b("k2"), b("two"), 2), Entry.value(b("k3"), b("three"), 3));
        long[] starts = WalFiles.write(log(), written);
        assertThat(starts).startsWith(0, BLOCK, 2 * BLOCK);
        flip(log(), 2L * BLOCK - 2); // in the zeros of block 1's tail: never read
        assertThat(WalFiles.replay(log()).keys()).containsExactly("k0", "k1", "k2", "k3");
        assertThat(WalFiles.replay(log()).outcome().damaged()).isFalse();
        flip(log(), BLOCK + 100); // k1's body: k2, at the next block, is kept
        WalFiles.Replayed r = WalFiles.replay(log());
        assertThat(r.keys()).containsExactly("k0", "k2", "k3");
        assertThat(r.outcome()).isEqualTo(new WalReader.Outcome(3, BLOCK, true));
        truncate(log(), 2L * BLOCK - 2); // cut in that tail: no record torn
        assertThat(WalFiles.replay(log()).outcome()).isEqualTo(new WalReader.Outcome(1, BLOCK - 2, false));
    }

    @Test
    void logRecordsInsideAValueAreNeverReplayed() throws IOException {
        List<Entry> inner = List.of(Entry.value(b("phantom"), b("never written"), Long.MAX_VALUE / 2));
        Path innerLog = dir.resolve("inner");
        WalFiles.write(innerLog, inner);
        byte[] host = new byte[3 * BLOCK];
        byte[] innerBytes = Files.readAllBytes(innerLog);
        for (int at = 0; at + innerBytes.length <= host.length; at += 1000) System.arraycopy(innerBytes, 0, host, at, innerBytes.length);
        List<Entry> written = List.of(small(0), Entry.value(b("carrier"), host, 1), small(2));
        long[] starts = WalFiles.write(log(), written);
        for (long at : new long[] {starts[1] + 50, BLOCK + 50, 2L * BLOCK + 50, starts[2] - 20}) {
            WalFiles.write(log(), written);
            flip(log(), at);
            assertThat(WalFiles.replay(log()).keys()).as("flip at %d", at).doesNotContain("phantom", "carrier");
            truncate(log(), at);
            assertThat(WalFiles.replay(log()).keys()).as("cut at %d", at).containsExactly("k0");
        }
    }

    @Test
    void theStoreKeepsADamagedLogAsCorruptAndDeletesATornOne() throws IOException {
        StoreOptions opts = StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC);
        long[] starts = writeSmall(300);
        truncate(log(), starts[300] - 3);
        try (LsmStore s = LsmStore.open(dir, opts)) {
            for (int i = 0; i < 299; i++) assertThat(s.get(b("k" + i)).value()).isEqualTo(small(i).value());
            assertThat(s.get(b("k299"))).isNull();
        }
        assertThat(files(".corrupt")).isEmpty();

        for (Path p : Files.list(dir).toList()) Files.delete(p);
        writeSmall(300);
        flip(log(), starts[10] + 40);
        try (LsmStore s = LsmStore.open(dir, opts)) {
            for (int i = 0; i < 300; i++) {
                if (i == 10) assertThat(s.get(b("k" + i))).as("k%d", i).isNull();
                else assertThat(s.get(b("k" + i)).value()).as("k%d", i).isEqualTo(small(i).value());
            }
        }
        // kept for inspection, under a name the store never replays again
        assertThat(files(".corrupt")).containsExactly("000001.log.corrupt");
        try (LsmStore s = LsmStore.open(dir, opts)) {
            assertThat(s.get(b("k299")).value()).isEqualTo(small(299).value());
        }
    }
}
