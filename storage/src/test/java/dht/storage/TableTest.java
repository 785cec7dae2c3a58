package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sorted table on its own: write, open, point reads at block boundaries, ranges, bloom filter. */
class TableTest {
    @TempDir
    Path dir;

    private static byte[] k(int i) { return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8); }

    private Table write(int n, int blockSize) throws IOException {
        List<Entry> es = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            es.add(i % 10 == 3 ? Entry.tombstone(k(i * 2), i) : Entry.value(k(i * 2), ("v" + i).getBytes(StandardCharsets.UTF_8), i));
        }
        Path p = dir.resolve("000001.sst");
        StoreOptions o = StoreOptions.defaults().withBlockSize(blockSize);
        assertThat(TableWriter.write(NioStorageFiles.INSTANCE, p, es.iterator(), n, o)).isEqualTo(n);
        Table t = Table.open(NioStorageFiles.INSTANCE, p, 1);
        t.retain();
        return t;
    }

    @Test
    void everyKeyIsFoundAndNoOtherAcrossManyBlocks() throws IOException {
        Table t = write(5000, 256);
        try {
            assertThat(t.entryCount).isEqualTo(5000);
            for (int i = 0; i < 5000; i++) {
                Entry e = t.get(k(i * 2));
                assertThat(e).as("key %d", i).isNotNull();
                assertThat(e.timestamp()).isEqualTo(i);
                assertThat(e.isTombstone()).isEqualTo(i % 10 == 3);
                assertThat(t.get(k(i * 2 + 1))).isNull();
            }
            assertThat(t.get(new byte[0])).isNull();
            assertThat(t.get(new byte[] {(byte) 0xff})).isNull();
        } finally {
            t.release();
        }
    }

    @Test
    void aTableRecordsItsGreatestTimestampWhereverItsEntryIs() throws IOException {
        List<Entry> es = new ArrayList<>();
        long max = Long.MIN_VALUE;
        for (int i = 0; i < 300; i++) {
            long ts = (i * 7919L) % 1000 - 800; // out of key order, mostly negative
            max = Math.max(max, ts);
            es.add(Entry.value(k(i), new byte[] {1}, ts));
        }
        Path p = dir.resolve("000009.sst");
        TableWriter.write(NioStorageFiles.INSTANCE, p, es.iterator(), es.size(), StoreOptions.defaults().withBlockSize(256));
        Table t = Table.open(NioStorageFiles.INSTANCE, p, 9);
        t.retain();
        try {
            assertThat(max).isNotEqualTo(es.getLast().timestamp()).isNotEqualTo(es.getFirst().timestamp());
            assertThat(t.maxTimestamp).isEqualTo(max);
        } finally {
            t.release();
        }
    }

    /** Every key of the 2,000 is found, the odd keys in between are not, and few of those get past the bloom filter. */
    private static void assertHoldsTheTwoThousand(Table t) throws IOException {
        int passed = 0;
        for (int i = 0; i < 2000; i++) {
            Entry e = t.get(k(i * 2));
            assertThat(e).as("key %d", i * 2).isNotNull();
            assertThat(e.timestamp()).isEqualTo(i);
            assertThat(e.isTombstone()).isEqualTo(i % 10 == 3);
            if (!e.isTombstone()) assertThat(e.value()).isEqualTo(("v" + i).getBytes(StandardCharsets.UTF_8));
            assertThat(t.get(k(i * 2 + 1))).isNull();
            if (t.mightContain(k(i * 2 + 1))) passed++;
        }
        // Probed the wrong way, the filter would pass about half the absent keys (as many bits are set) or reject present ones.
        assertThat(passed).as("absent keys the bloom filter let through").isLessThan(60);
    }

    /** The footer of table file {@code file} with the int at {@code offset} set to {@code value}, its checksum redone. */
    private static byte[] footerWith(byte[] file, int offset, int value) {
        byte[] footer = Arrays.copyOfRange(file, file.length - TableFormat.FOOTER, file.length);
        Bytes.putInt(footer, offset, value);
        Bytes.putInt(footer, 36, Bytes.crc(footer, 0, 36));
        return footer;
    }

    /** Writes {@code pieces} one after another as table {@code number}, and opens it (retained). */
    private Table openPieces(long number, byte[]... pieces) throws IOException {
        Path p = dir.resolve(String.format("%06d.sst", number));
        try (var out = Files.newOutputStream(p)) {
            for (byte[] piece : pieces) out.write(piece);
        }
        Table t = Table.open(NioStorageFiles.INSTANCE, p, number);
        t.retain();
        return t;
    }

    /**
     * A footer of any other version, intact, is refused as not this build's to read (not set aside
     * as damaged: the open fails and names it); pre-release versions are no longer read.
     */
    @Test
    void aTableOfAnotherFormatVersionIsRefusedNotTakenForDamage() throws IOException {
        write(2000, 256).release();
        byte[] file = Files.readAllBytes(dir.resolve("000001.sst"));
        int f = file.length - TableFormat.FOOTER;
        for (int version : new int[] {0, 1, 2, 6}) {
            Path p = dir.resolve("000002.sst");
            try (var out = Files.newOutputStream(p)) {
                out.write(file, 0, f);
                out.write(footerWith(file, 32, version));
            }
            assertThatThrownBy(() -> Table.open(NioStorageFiles.INSTANCE, p, 2)).as("version %d", version)
                    .isInstanceOf(IOException.class).isNotInstanceOf(CorruptionException.class)
                    .hasMessageContaining("000002.sst has table format version " + version + "; this build reads versions 3 to 5")
                    .hasMessageContaining(version > 5 ? "newer dht" : "pre-release format, no longer read: recreate the data directory");
        }
    }

    /** A table written now has the current format, whose blocked filter is probed as it was built. */
    @Test
    void aNewTableHasTheBlockedFilter() throws IOException {
        Table t = write(2000, 256);
        try {
            byte[] bytes = Files.readAllBytes(dir.resolve("000001.sst"));
            assertThat(Bytes.getInt(bytes, bytes.length - TableFormat.FOOTER + 32)).isEqualTo(5);
            assertHoldsTheTwoThousand(t);
        } finally {
            t.release();
        }
    }

    /**
     * A blocked filter must be whole 512-bit blocks: one of seven words, with a valid checksum and
     * length, is ignored (every read looks inside), not probed with an out-of-range block.
     */
    @Test
    void aBlockedFilterOfPartBlocksIsIgnored() throws IOException {
        write(2000, 256).release();
        byte[] file = Files.readAllBytes(dir.resolve("000001.sst"));
        int f = file.length - TableFormat.FOOTER;
        int bloomAt = (int) Bytes.getLong(file, f + 12);
        byte[] bloom = new byte[8 + 7 * 8 + 4]; // seven zero words: were it probed, no key would be found
        Bytes.putInt(bloom, 0, 7);
        Bytes.putInt(bloom, 4, 7);
        Bytes.putInt(bloom, bloom.length - 4, Bytes.crc(bloom, 0, bloom.length - 4));
        Table t = openPieces(4, Arrays.copyOfRange(file, 0, bloomAt), bloom, Arrays.copyOfRange(file, f - TableFormat.STATS, f),
                footerWith(file, 20, bloom.length));
        try {
            for (int i = 0; i < 2000; i++) assertThat(t.get(k(i * 2))).as("key %d", i * 2).isNotNull();
            assertThat(t.mightContain(k(1))).as("no filter: every key may be there").isTrue();
        } finally {
            t.release();
        }
    }

    @Test
    void rangesStartAndStopExactly() throws IOException {
        Table t = write(1000, 300);
        try {
            Iterator<Entry> it = t.iterator(k(101), k(201)); // 101 absent: starts at 102
            List<String> got = new ArrayList<>();
            it.forEachRemaining(e -> got.add(new String(e.key(), StandardCharsets.UTF_8)));
            assertThat(got).hasSize(50);
            assertThat(got.getFirst()).isEqualTo("key000102");
            assertThat(got.getLast()).isEqualTo("key000200");
            List<Entry> all = new ArrayList<>();
            t.iterator(null, null).forEachRemaining(all::add);
            assertThat(all).hasSize(1000);
        } finally {
            t.release();
        }
    }

    @Test
    void bloomFilterHasAboutOnePercentFalsePositives() throws IOException {
        Table t = write(20_000, 4096);
        try {
            int fp = 0;
            for (int i = 0; i < 20_000; i++) if (t.mightContain(k(i * 2 + 1))) fp++;
            assertThat(fp / 20_000.0).isLessThan(0.02);
            for (int i = 0; i < 20_000; i++) assertThat(t.mightContain(k(i * 2))).isTrue();
        } finally {
            t.release();
        }
    }

    @Test
    void emptyTableIsValid() throws IOException {
        Table t = write(0, 4096);
        try {
            assertThat(t.get(k(1))).isNull();
            assertThat(t.iterator(null, null).hasNext()).isFalse();
        } finally {
            t.release();
        }
    }

    @Test
    void manifestRoundTrips() throws IOException {
        Manifest m = new Manifest(42, 17, List.of(3L, 9L, 12L));
        m.write(NioStorageFiles.INSTANCE, dir);
        assertThat(Manifest.read(NioStorageFiles.INSTANCE, dir)).isEqualTo(m);
    }

    /**
     * An index whose checksum holds but whose entries point outside it (a writer's bug, or bytes
     * made to fit) is damage like any other: a read fails with a CorruptionException, never an
     * unchecked exception from the mapping.
     */
    @Test
    void anIndexEntryPointingOutsideTheIndexIsCorruption() throws IOException {
        write(50, 256).release();
        byte[] file = Files.readAllBytes(dir.resolve("000001.sst"));
        int f = file.length - TableFormat.FOOTER;
        int index = (int) Bytes.getLong(file, f);
        int indexLen = Bytes.getInt(file, f + 8);
        int first = index + Bytes.getInt(file, index + 4); // entry 0: key_len u32 | key | offset u64 | len u32
        int[][] damages = {
            {index + 4, 0x7FFF_FFF0}, // entry 0 starts past the end of the file
            {index + 4, indexLen - 6}, // entry 0 starts inside the index's checksum
            {first, -5}, // a negative key length
            {first, 0x7FFF_FFFF}, // a key longer than the file
            {first, indexLen}, // a key running past the index
        };
        for (int[] d : damages) {
            byte[] damaged = file.clone();
            Bytes.putInt(damaged, d[0], d[1]);
            Bytes.putInt(damaged, index + indexLen - 4, Bytes.crc(damaged, index, indexLen - 4));
            Path p = dir.resolve("000002.sst");
            Files.write(p, damaged);
            assertThat(readFailure(p)).as("int %d at offset %d", d[1], d[0]).isInstanceOf(CorruptionException.class);
        }
    }

    /** What opening table {@code p} and reading all of it (point reads, a scan) fails with, or null. */
    private static Throwable readFailure(Path p) {
        Table t;
        try {
            t = Table.open(NioStorageFiles.INSTANCE, p, 2);
        } catch (Throwable e) {
            return e;
        }
        t.retain();
        try {
            t.get(k(0));
            t.get(k(51));
            for (Iterator<Entry> it = t.iterator(k(10), null); it.hasNext(); ) it.next();
            return null;
        } catch (java.io.UncheckedIOException e) {
            return e.getCause();
        } catch (Throwable e) {
            return e;
        } finally {
            t.release();
        }
    }
}
