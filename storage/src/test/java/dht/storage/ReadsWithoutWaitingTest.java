package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LsmStore#readsWithoutWaiting} and {@link Residency}: a point read may run on an event loop
 * only while every table is in the page cache, as mincore(2) tells, and no value is large; the
 * last release of what such a read held is made off its thread.
 */
class ReadsWithoutWaitingTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A new table is not trusted until a background check found it resident: until then reads are handed over. */
    @Test
    void aStoreWhoseTablesWereJustWrittenReadsWithoutWaitingOnceCheckedAndAClosedOneSaysWhy() throws Exception {
        LsmStore s = LsmStore.open(dir, StoreOptions.defaults());
        assertThat(s.readsWithoutWaiting()).as("memtable only").isTrue();
        for (int i = 0; i < 1000; i++) s.put(b("k" + i), b("v" + i), i + 1);
        s.flush();
        assertThat(s.stats().tables()).isPositive();
        assertThat(readsWithoutWaitingWithin10s(s)).as("a table written through the page cache, once checked").isTrue();
        s.close();
        assertThatThrownBy(s::readsWithoutWaiting).isInstanceOf(IOException.class);
    }

    /**
     * Data a workload never reads leaves the page cache (memory pressure, proactive reclaim) while
     * the index and filter it uses stay: reads still run without waiting, each checking its own
     * block, and a read of a block not in memory says so before touching it, to be made again where
     * it may wait.
     */
    @Test
    void aBlockOutOfThePageCacheIsReportedByTheReadThatNeedsItAndReadAnywhereElse() throws Exception {
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults().withCompression(Compression.NONE))) {
            for (int i = 0; i < 20_000; i++) s.put(b(String.format("k%06d", i)), b("value-" + i + "-".repeat(80)), i + 1);
            s.flush();
        }
        Path sst;
        try (var ssts = java.nio.file.Files.list(dir)) {
            sst = ssts.filter(p -> p.toString().endsWith(".sst")).findFirst().orElseThrow();
        }
        pageOut(sst);
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults().withCompression(Compression.NONE))) {
            assertThat(readsWithoutWaitingWithin10s(s))
                    .as("index and filter read at open: in memory, though the blocks are not").isTrue();
            assertThatThrownBy(() -> ReadsWithoutWaiting.call(() -> s.get(b("k012345"))))
                    .as("a block not in memory, in the scope").isSameAs(WouldWaitException.INSTANCE);
            assertThat(s.get(b("k012345")).value()).as("outside the scope it waits, and reads")
                    .startsWith(b("value-12345-"));
            assertThat(ReadsWithoutWaiting.call(() -> s.get(b("k012345"))).value()).as("its block now in memory, read in the scope").startsWith(b("value-12345-"));
            assertThat(s.get(b("absent"))).isNull();
        }
    }

    /** Whether the store says its reads wait for nothing within 10 s (its checks run in the background). */
    private static boolean readsWithoutWaitingWithin10s(LsmStore s) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!s.readsWithoutWaiting()) {
            if (System.nanoTime() >= deadline) return false;
            Thread.sleep(10);
        }
        return true;
    }

    /** Reads one byte of every page of {@code seg}, and returns their sum. */
    private static long touchEveryPage(MemorySegment seg) {
        long sum = 0;
        for (long p = 0; p < seg.byteSize(); p += 4096) sum += seg.get(ValueLayout.JAVA_BYTE, p);
        return sum;
    }

    /** Drops the file's pages from the page cache: mapped here alone, each page read, then MADV_PAGEOUT. */
    private static void pageOut(Path file) throws IOException {
        try (Arena arena = Arena.ofConfined(); FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            assertThat(touchEveryPage(seg)).isNotZero();
            boolean advised = MappingAdvice.advise(seg, 0, seg.byteSize(), 21); // Linux's MADV_PAGEOUT
            assumeTrue(advised && !seg.isLoaded(), "this kernel drops pages on MADV_PAGEOUT (Linux 5.4 and later)");
        }
    }

    /** Pages of a sparse file never read are not in the page cache; once read, they are. */
    @Test
    void aMappingIsResidentOnceEveryPageWasRead() throws Exception {
        Path file = dir.resolve("sparse");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(1 << 20);
        }
        try (Arena arena = Arena.ofConfined(); FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, 1 << 20, arena);
            Residency r = new Residency(seg, 60_000_000_000L);
            assertThat(r.due()).isTrue();
            assertThat(r.resident()).as("before any check").isFalse();
            r.check();
            assertThat(r.resident()).isFalse();
            assertThat(r.due()).isFalse();
            assertThat(touchEveryPage(seg)).isZero();
            assertThat(r.resident()).as("an answer stands until the next check").isFalse();
            r.check();
            assertThat(r.resident()).isTrue();
        }
    }

    @Test
    void memoryThatIsNotAFileMappingIsResident() {
        Residency r = new Residency(MemorySegment.ofArray(new byte[4096]));
        r.check();
        assertThat(r.resident()).isTrue();
    }

    /**
     * A large value makes a read long CPU work even in memory (checksum, decompression, copy): in
     * the memtable, and in a table once flushed, with or without a codec, reads are handed over.
     */
    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "LZ4"})
    void aLargeValueSendsReadsToTheStorageThreadsInTheMemtableAndOnceFlushed(Compression compression) throws Exception {
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults().withCompression(compression))) {
            s.put(b("small"), b("v"), 1);
            assertThat(s.readsWithoutWaiting()).isTrue();
            byte[] big = new byte[ResidencyWatch.INLINE_BYTES_MAX + 1];
            Arrays.fill(big, (byte) 'v');
            s.put(b("big"), big, 2);
            assertThat(s.readsWithoutWaiting()).as("in the memtable").isFalse();
            s.flush();
            long deadline = System.nanoTime() + 3_000_000_000L;
            while (System.nanoTime() < deadline) {
                assertThat(s.readsWithoutWaiting()).as("in a table").isFalse();
                Thread.sleep(50);
            }
            assertThat(s.get(b("big")).value()).isEqualTo(big);
        }
        try (var ssts = java.nio.file.Files.list(dir)) {
            Path sst = ssts.filter(p -> p.toString().endsWith(".sst")).findFirst().orElseThrow();
            Table t = Table.open(NioStorageFiles.INSTANCE, sst, 1);
            t.retain();
            try {
                assertThat(ResidencyWatch.largestBlock(t)).as("the large value's block, measured")
                        .isGreaterThan(ResidencyWatch.INLINE_BYTES_MAX);
            } finally {
                t.release();
            }
        }
    }

    /** The last reference a read lets go of is released on the executor it names, not on its own thread. */
    @Test
    void theLastReleaseOfAVersionIsMadeOnTheGivenExecutor() {
        Memtable m = new Memtable(1, 1 << 16, 1 << 16);
        Version v = new Version(m, List.of(), List.of());
        List<Runnable> handed = new ArrayList<>();
        assertThat(v.tryRetain()).isTrue();
        v.release(handed::add);
        assertThat(handed).as("not the last reference: released here").isEmpty();
        v.release(handed::add);
        assertThat(handed).hasSize(1);
        m.put(Entry.value(b("k"), b("v"), 1)); // the memtable is still alive
        handed.getFirst().run();
        assertThatThrownBy(() -> m.put(Entry.value(b("k2"), b("v"), 2))).isInstanceOf(IllegalStateException.class);
    }
}
