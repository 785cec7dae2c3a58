package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Tables whose data blocks are compressed: each codec, codecs side by side, damage, salvage. */
class CompressionTest {
    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    /** Text that compresses, different for each key. */
    private static byte[] text(int i) {
        return ("entry " + i + ": the quick brown fox jumps over the lazy dog, " + (i % 7) + " times over and again. ")
                .repeat(1 + i % 3).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] noise(int i) {
        byte[] v = new byte[200];
        new Random(i).nextBytes(v);
        return v;
    }

    private Path writeTable(String name, Compression c, int n, boolean compressible) throws IOException {
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            entries.add(i % 13 == 5 ? Entry.tombstone(key(i), i) : Entry.value(key(i), compressible ? text(i) : noise(i), i));
        }
        Path p = dir.resolve(name);
        TableWriter.write(NioStorageFiles.INSTANCE, p, entries.iterator(), n,
                StoreOptions.defaults().withBlockSize(4096).withCompression(c));
        return p;
    }

    private static Table open(Path p) throws IOException {
        Table t = Table.open(NioStorageFiles.INSTANCE, p, 1);
        t.retain();
        return t;
    }

    private static void assertHolds(Table t, int n, boolean compressible) throws IOException {
        for (int i = 0; i < n; i++) {
            Entry e = t.get(key(i));
            assertThat(e).as("key %d", i).isNotNull();
            assertThat(e.timestamp()).isEqualTo(i);
            if (i % 13 == 5) assertThat(e.isTombstone()).isTrue();
            else assertThat(e.value()).isEqualTo(compressible ? text(i) : noise(i));
        }
        assertThat(t.get("absent".getBytes(StandardCharsets.UTF_8))).isNull();
        Iterator<Entry> it = t.iterator(null, null);
        int i = 0;
        while (it.hasNext()) {
            Entry e = it.next();
            assertThat(e.key()).isEqualTo(key(i));
            if (!e.isTombstone()) assertThat(e.value()).isEqualTo(compressible ? text(i) : noise(i));
            i++;
        }
        assertThat(i).isEqualTo(n);
        Iterator<Entry> borrowed = t.borrowingIterator();
        List<Entry> all = new ArrayList<>();
        borrowed.forEachRemaining(all::add);
        // values borrowed from a decompressed block stay valid after later blocks were read
        for (int j = 0; j < n; j++) if (j % 13 != 5) assertThat(all.get(j).value()).isEqualTo(compressible ? text(j) : noise(j));
    }

    private static int compressedBlocks(Path p) throws IOException {
        Table t = open(p);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = NioStorageFiles.INSTANCE.map(p, arena);
            long indexOffset = seg.get(Bytes.LONG, seg.byteSize() - TableFormat.FOOTER);
            int n = 0;
            long off = 0;
            for (int b = 0; b < t.blockCount(); b++) {
                long len = t.checkBlock(b) - 4;
                if (DataBlock.isCompressed(seg, off)) n++;
                off += len + 4;
            }
            assertThat(off).isEqualTo(indexOffset);
            return n;
        } finally {
            t.release();
        }
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void eachCodecRoundTrips(Compression c) throws IOException {
        Path p = writeTable("000001.sst", c, 3000, true);
        Table t = open(p);
        try {
            assertHolds(t, 3000, true);
        } finally {
            t.release();
        }
        if (c != Compression.NONE) {
            Path raw = writeTable("000002.sst", Compression.NONE, 3000, true);
            assertThat(Files.size(p)).as("%s against none", c).isLessThan(Files.size(raw) / 2);
            assertThat(compressedBlocks(p)).isGreaterThan(0);
        }
    }

    /**
     * Point reads decompress into an array their thread reuses: what each returned must stay as it
     * was while later reads, from other blocks and tables, overwrite that array, and blocks larger
     * than the reused array's bound, read in between, read as well.
     */
    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void whatPointReadsReturnOutlivesTheirThreadsReusedBlock(Compression c) throws IOException {
        Table small = open(writeTable("000001.sst", c, 3000, true));
        Path p = dir.resolve("000002.sst");
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 3000; i++) entries.add(Entry.value(key(i), text(i + 1), i));
        TableWriter.write(NioStorageFiles.INSTANCE, p, entries.iterator(), entries.size(),
                StoreOptions.defaults().withBlockSize(2 * Table.SCRATCH_MAX).withCompression(c));
        Table large = open(p);
        try {
            assertThat(compressedBlocks(p)).as("blocks past the bound, compressed").isGreaterThan(1);
            List<Entry> read = new ArrayList<>();
            for (int i = 2999; i >= 0; i -= 7) {
                read.add(small.get(key(i)));
                if (i % 5 == 0) assertThat(large.get(key(i)).value()).isEqualTo(text(i + 1));
            }
            int i = 2999;
            for (Entry e : read) {
                assertThat(e.key()).as("key %d", i).isEqualTo(key(i));
                assertThat(e.timestamp()).isEqualTo(i);
                if (i % 13 == 5) assertThat(e.isTombstone()).isTrue();
                else assertThat(e.value()).as("key %d", i).isEqualTo(text(i));
                i -= 7;
            }
        } finally {
            small.release();
            large.release();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void aBlockThatDoesNotCompressIsStoredRaw(Compression c) throws IOException {
        Path p = writeTable("000001.sst", c, 2000, false);
        Path raw = writeTable("000002.sst", Compression.NONE, 2000, false);
        assertThat(compressedBlocks(p)).isZero();
        assertThat(Files.readAllBytes(p)).isEqualTo(Files.readAllBytes(raw));
        Table t = open(p);
        try {
            assertHolds(t, 2000, false);
        } finally {
            t.release();
        }
    }

    private static StoreOptions opts(Compression c) {
        return StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC).withBlockSize(4096).withCompression(c)
                .withCompaction(100, 200); // compaction only when asked
    }

    private List<Path> tables() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".sst")).sorted().toList();
        }
    }

    @Test
    void tablesOfEveryCodecLiveSideBySideAndCompactionWritesTheCurrentOne() throws IOException {
        Compression[] order = {Compression.NONE, Compression.LZ4, Compression.ZSTD, Compression.LZ4};
        for (int round = 0; round < order.length; round++) {
            try (LsmStore s = LsmStore.open(dir, opts(order[round]))) {
                for (int i = round; i < 4000; i += order.length) s.put(key(i), text(i), round + 1);
                s.put(key(0), text(round), 100 + round); // the same key rewritten in every codec
                s.flush();
            }
        }
        assertThat(tables()).hasSize(order.length);
        try (LsmStore s = LsmStore.open(dir, opts(Compression.ZSTD))) {
            checkAll(s);
            s.compact();
            assertThat(tables()).hasSize(1);
            checkAll(s);
        }
        Path merged = tables().getFirst();
        assertThat(compressedBlocks(merged)).isGreaterThan(0);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = NioStorageFiles.INSTANCE.map(merged, arena);
            assertThat(-seg.get(Bytes.INT, 0)).as("the codec of the first block").isEqualTo(Compression.ZSTD.id);
        }
        try (LsmStore s = LsmStore.open(dir, opts(Compression.NONE))) {
            checkAll(s);
        }
        assertThat(StoreCheck.of(dir).run(n -> {}).intact()).isTrue();
    }

    private static void checkAll(LsmStore s) throws IOException {
        assertThat(s.get(key(0)).value()).isEqualTo(text(3));
        for (int i = 1; i < 4000; i++) assertThat(s.get(key(i)).value()).as("key %d", i).isEqualTo(text(i));
        int n = 0;
        try (CloseableIterator<Entry> it = s.scan(key(0), key(4000))) {
            while (it.hasNext()) {
                Entry e = it.next();
                if (n > 0) assertThat(e.value()).isEqualTo(text(n));
                n++;
            }
        }
        assertThat(n).isEqualTo(4000);
    }

    private static void flip(Path p, long offset) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.seek(offset);
            int v = f.read();
            f.seek(offset);
            f.write(v ^ 0x40);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void aDamagedCompressedBlockIsFoundByItsChecksumOnReadAndByTheCheck(Compression c) throws IOException {
        try (LsmStore s = LsmStore.open(dir, opts(c))) {
            for (int i = 0; i < 3000; i++) s.put(key(i), text(i), 1);
            s.flush();
        }
        Path table = tables().getFirst();
        assertThat(compressedBlocks(table)).isGreaterThan(0);
        flip(table, DataBlock.COMPRESSED_HEADER + 30); // inside the first block's compressed bytes
        StoreCheck.Report r = StoreCheck.of(dir).run(n -> {});
        assertThat(r.damagedTables()).isEqualTo(1);
        assertThat(r.tables().getFirst().problems()).singleElement().asString()
                .contains("1 of").contains("data blocks damaged").contains("checksum mismatch");
        try (LsmStore s = LsmStore.open(dir, opts(c))) {
            assertThatThrownBy(() -> s.get(key(0))).isInstanceOf(CorruptionException.class).hasMessageContaining("checksum");
            assertThat(s.get(key(2999)).value()).isEqualTo(text(2999));
        }
    }

    /**
     * A compressed block whose checksum holds but whose header lies (a writer's fault, not the
     * disk's): a read refuses it, and so does the check, which decompresses what it checks.
     */
    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void aCompressedBlockThatDoesNotDecompressIsDamage(Compression c) throws IOException {
        try (LsmStore s = LsmStore.open(dir, opts(c))) {
            for (int i = 0; i < 3000; i++) s.put(key(i), text(i), 1);
            s.flush();
        }
        Path table = tables().getFirst();
        byte[] file = Files.readAllBytes(table);
        int stored = Bytes.getInt(file, 8) + DataBlock.COMPRESSED_HEADER;
        Bytes.putInt(file, 4, Bytes.getInt(file, 4) + 1); // raw_length one more than it is
        Bytes.putInt(file, stored, Bytes.crc(file, 0, stored));
        Files.write(table, file);
        StoreCheck.Report r = StoreCheck.of(dir).run(n -> {});
        assertThat(r.tables().getFirst().problems()).singleElement().asString().contains("does not decompress");
        try (LsmStore s = LsmStore.open(dir, opts(c))) {
            assertThatThrownBy(() -> s.get(key(0))).isInstanceOf(CorruptionException.class)
                    .hasMessageContaining("does not decompress");
            assertThat(s.get(key(2999)).value()).isEqualTo(text(2999));
        }
    }

    @Test
    void aCompressedTableWithADamagedFooterIsSalvagedWhole() throws IOException {
        try (LsmStore s = LsmStore.open(dir, opts(Compression.LZ4))) {
            for (int i = 0; i < 3000; i++) s.put(key(i), text(i), 1);
            s.flush();
        }
        Path table = tables().getFirst();
        flip(table, Files.size(table) - 10); // the footer
        try (LsmStore s = LsmStore.open(dir, opts(Compression.LZ4))) {
            for (int i = 0; i < 3000; i++) assertThat(s.get(key(i)).value()).as("key %d", i).isEqualTo(text(i));
        }
    }
}
