package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random damage to a log, many times over: whatever the damage, replay never yields a record that
 * was not written, nor a written key with another value; and flipped bytes in the bodies of records
 * that are not next to each other lose those records and no other.
 */
class LogDamagePropertyTest {
    @TempDir
    Path dir;

    private record Log(byte[] bytes, List<Long> starts, List<Entry> entries) {
        long end(int i) {
            return i + 1 < starts.size() ? starts.get(i + 1) : bytes.length;
        }
    }

    private static Log write(Random r, int records) {
        return write(r, records, false);
    }

    /** With {@code embedding}, a quarter of the values are themselves log records (keys "e..."), one to three of them. */
    private static Log write(Random r, int records, boolean embedding) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Long> starts = new ArrayList<>();
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            byte[] value = new byte[r.nextInt(200)];
            r.nextBytes(value);
            if (embedding && r.nextInt(4) == 0) {
                ByteArrayOutputStream v = new ByteArrayOutputStream();
                for (int j = 0, m = 1 + r.nextInt(3); j < m; j++) {
                    byte[] inner = new byte[r.nextInt(30)];
                    v.writeBytes(LogRecord.encode(Entry.value(("e" + i + "." + j).getBytes(StandardCharsets.UTF_8), inner, 1000 + j)));
                }
                value = v.toByteArray();
            }
            Entry e = r.nextInt(10) == 0 ? Entry.tombstone(("k" + i).getBytes(StandardCharsets.UTF_8), i)
                    : Entry.value(("k" + i).getBytes(StandardCharsets.UTF_8), value, i);
            starts.add((long) out.size());
            entries.add(e);
            out.writeBytes(LogRecord.encode(e));
        }
        return new Log(out.toByteArray(), starts, entries);
    }

    private Map<String, Entry> replay(byte[] bytes) throws IOException {
        Path p = dir.resolve("000001.log");
        Files.write(p, bytes);
        Map<String, Entry> out = new HashMap<>();
        WalReader.replay(NioStorageFiles.INSTANCE, p, e -> {
            Entry previous = out.put(new String(e.key(), StandardCharsets.UTF_8), e);
            assertThat(previous).as("replayed twice: %s", e).isNull();
        });
        return out;
    }

    /** Any replayed entry is one that was written, byte for byte. */
    private static void assertOnlyWritten(Log log, Map<String, Entry> replayed, String what) {
        Map<String, Entry> written = new HashMap<>();
        for (Entry e : log.entries()) written.put(new String(e.key(), StandardCharsets.UTF_8), e);
        replayed.forEach((k, e) -> {
            Entry w = written.get(k);
            assertThat(w).as("%s: invented key %s", what, k).isNotNull();
            assertThat(e.isTombstone()).as("%s: %s", what, k).isEqualTo(w.isTombstone());
            assertThat(e.timestamp()).as("%s: %s", what, k).isEqualTo(w.timestamp());
            if (!w.isTombstone()) assertThat(e.value()).as("%s: %s", what, k).isEqualTo(w.value());
        });
    }

    /** Whatever the bytes, the search past damage reads the log without failing, and what it yields was written. */
    @Test
    void anyFlippedBytesAreReadWithoutErrorAndYieldOnlyWrittenRecords() throws IOException {
        Random r = new Random(42);
        for (int round = 0; round < 300; round++) {
            Log log = write(r, 5 + r.nextInt(60));
            byte[] bytes = log.bytes().clone();
            int flips = 1 + r.nextInt(4);
            for (int f = 0; f < flips; f++) bytes[r.nextInt(bytes.length)] ^= (byte) (1 << r.nextInt(8));
            assertOnlyWritten(log, replay(bytes), "round " + round);
        }
    }

    /**
     * The open case of docs/storage-format.md: when a record whose value holds whole log records is
     * damaged in more than one field, no checksum tells its embedded records from real ones, and
     * rule 2 may replay them. Measured here so that it does not grow: with one or two flipped bits
     * in logs where a quarter of the values embed records, this replayed an embedded record in 141
     * of these 2,000 logs before rules 0 and 1 could pass over a second damage, 21 after that, and
     * 3 once rule 1 could also pass over the record right after the failed one.
     */
    @Test
    void embeddedRecordsAreRarelyReplayedAfterTwoFlips() throws IOException {
        Random r = new Random(42);
        int invented = 0;
        for (int round = 0; round < 2000; round++) {
            Log log = write(r, 5 + r.nextInt(60), true);
            byte[] bytes = log.bytes().clone();
            int flips = 1 + r.nextInt(2);
            for (int f = 0; f < flips; f++) bytes[r.nextInt(bytes.length)] ^= (byte) (1 << r.nextInt(8));
            Map<String, Entry> replayed = replay(bytes);
            if (replayed.keySet().stream().anyMatch(k -> k.startsWith("e"))) {
                invented++;
            } else {
                assertOnlyWritten(log, replayed, "round " + round);
            }
        }
        assertThat(invented).as("logs of 2,000 that replayed an embedded record").isLessThanOrEqualTo(6);
    }

    /** Records k0..k(n-1), timestamps 0..n-1, values as {@code valueOf} gives them ("value i" where it gives null). */
    private static Log logOf(int n, java.util.function.IntFunction<byte[]> valueOf) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<Long> starts = new ArrayList<>();
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] value = valueOf.apply(i);
            if (value == null) value = ("value " + i).getBytes(StandardCharsets.UTF_8);
            Entry e = Entry.value(("k" + i).getBytes(StandardCharsets.UTF_8), value, i);
            starts.add((long) out.size());
            entries.add(e);
            out.writeBytes(LogRecord.encode(e));
        }
        return new Log(out.toByteArray(), starts, entries);
    }

    /** Records 0-11, record 7's value holding two whole log records (keys e0, e1). */
    private static Log embeddingLog() {
        return logOf(12, i -> {
            if (i != 7) return null;
            ByteArrayOutputStream v = new ByteArrayOutputStream();
            v.writeBytes(LogRecord.encode(Entry.value("e0".getBytes(StandardCharsets.UTF_8), new byte[20], 100)));
            v.writeBytes(LogRecord.encode(Entry.value("e1".getBytes(StandardCharsets.UTF_8), new byte[20], 101)));
            return v.toByteArray();
        });
    }

    private static void assertLostExactly(Log log, Map<String, Entry> replayed, int... lost) {
        assertOnlyWritten(log, replayed, "replay");
        TreeSet<Integer> gone = new TreeSet<>();
        for (int i : lost) gone.add(i);
        for (int i = 0; i < log.entries().size(); i++) {
            assertThat(replayed.containsKey("k" + i)).as("k%d", i).isEqualTo(!gone.contains(i));
        }
    }

    @Test
    void aFlippedValueThatHoldsRecordsThenADamagedLengthLoseTheValueOnly() throws IOException {
        Log log = embeddingLog();
        byte[] bytes = log.bytes().clone();
        bytes[(int) (log.starts().get(7) + LogRecord.HEADER + 30)] ^= 8; // inside e0, in record 7's value
        bytes[(int) (log.starts().get(8) + 6)] ^= 1; // record 8's length, now past the end: its CRC proves the true one
        assertLostExactly(log, replay(bytes), 7);
    }

    @Test
    void neighbouringFlippedRecordsLoseThoseTwoEvenWhenTheSecondHoldsRecords() throws IOException {
        Log log = embeddingLog();
        byte[] bytes = log.bytes().clone();
        bytes[(int) (log.starts().get(6) + LogRecord.HEADER + 25)] ^= 2; // record 6's body
        bytes[(int) (log.starts().get(7) + LogRecord.HEADER + 30)] ^= 8; // inside e0, in record 7's value
        assertLostExactly(log, replay(bytes), 6, 7);
    }

    /**
     * A length field with a bit cleared ends the record early, where its value's bytes read as a
     * header running past the end of the file, followed by a whole log record in the value: the
     * record's own CRC still proves its true length, and nothing in its value is replayed.
     */
    @Test
    void aShortenedLengthLandingOnWhatLooksLikeATornTailIsStillRepaired() throws IOException {
        Log log = logOf(10, i -> {
            if (i != 3) return null;
            ByteArrayOutputStream v = new ByteArrayOutputStream();
            byte[] look = new byte[100];
            java.util.Arrays.fill(look, (byte) 0x55);
            java.nio.ByteBuffer.wrap(look).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(27, 1 << 20);
            v.writeBytes(look);
            v.writeBytes(LogRecord.encode(Entry.value("e0".getBytes(StandardCharsets.UTF_8), new byte[20], 100)));
            return v.toByteArray();
        });
        byte[] bytes = log.bytes().clone();
        bytes[(int) (log.starts().get(3) + 4)] ^= (byte) 0x80; // the length's low byte: 128 shorter
        assertLostExactly(log, replay(bytes));
    }

    /** A flipped bit in the low half of a record's length field: the record's CRC proves its true length, so nothing is lost. */
    @Test
    void aFlippedLengthBitLosesNothing() throws IOException {
        Random r = new Random(13);
        for (int round = 0; round < 3000; round++) {
            Log log = write(r, 5 + r.nextInt(60), true);
            byte[] bytes = log.bytes().clone();
            int hit = r.nextInt(log.starts().size());
            int at = (int) (log.starts().get(hit) + 4 + r.nextInt(2));
            bytes[at] ^= (byte) (1 << r.nextInt(8));
            Map<String, Entry> replayed = replay(bytes);
            String what = "round " + round + ", record " + hit + "'s length";
            assertOnlyWritten(log, replayed, what);
            for (int i = 0; i < log.entries().size(); i++) assertThat(replayed).as("%s: k%d", what, i).containsKey("k" + i);
        }
    }

    /** One flipped bit anywhere, in logs whose values may hold log records: at most the record it is in is lost, nothing is invented. */
    @Test
    void oneFlippedBitLosesAtMostItsOwnRecord() throws IOException {
        Random r = new Random(11);
        for (int round = 0; round < 3000; round++) {
            Log log = write(r, 5 + r.nextInt(60), true);
            byte[] bytes = log.bytes().clone();
            int at = r.nextInt(bytes.length);
            bytes[at] ^= (byte) (1 << r.nextInt(8));
            int hit = 0;
            while (hit + 1 < log.starts().size() && log.starts().get(hit + 1) <= at) hit++;
            Map<String, Entry> replayed = replay(bytes);
            String what = "round " + round + ", byte " + (at - log.starts().get(hit)) + " of record " + hit;
            assertOnlyWritten(log, replayed, what);
            for (int i = 0; i < log.entries().size(); i++) {
                if (i != hit) assertThat(replayed).as("%s: k%d", what, i).containsKey("k" + i);
            }
        }
    }

    @Test
    void flippedBodiesOfRecordsApartLoseThoseRecordsOnly() throws IOException {
        Random r = new Random(7);
        for (int round = 0; round < 300; round++) {
            int n = 10 + r.nextInt(60);
            Log log = write(r, n);
            byte[] bytes = log.bytes().clone();
            TreeSet<Integer> damaged = new TreeSet<>();
            int flips = 1 + r.nextInt(3);
            for (int f = 0; f < flips * 4 && damaged.size() < flips; f++) {
                int i = r.nextInt(n);
                if (damaged.contains(i - 1) || damaged.contains(i) || damaged.contains(i + 1)) continue;
                damaged.add(i);
                long bodyStart = log.starts().get(i) + LogRecord.HEADER;
                long at = bodyStart + r.nextLong(log.end(i) - bodyStart);
                bytes[(int) at] ^= (byte) (1 << r.nextInt(8));
            }
            Map<String, Entry> replayed = replay(bytes);
            String what = "round " + round + ", damaged records " + damaged + " of " + n;
            assertOnlyWritten(log, replayed, what);
            for (int i = 0; i < n; i++) {
                assertThat(replayed.containsKey("k" + i)).as("%s: k%d", what, i).isEqualTo(!damaged.contains(i));
            }
        }
    }
}
