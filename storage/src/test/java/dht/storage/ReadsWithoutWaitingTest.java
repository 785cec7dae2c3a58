package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LsmStore#readsWithoutWaiting} and {@link Residency}: a point read may run on an event loop
 * only while every table is in the page cache, as mincore(2) tells.
 */
class ReadsWithoutWaitingTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aStoreWhoseTablesWereJustWrittenReadsWithoutWaitingAndAClosedOneSaysWhy() throws Exception {
        LsmStore s = LsmStore.open(dir, StoreOptions.defaults());
        assertThat(s.readsWithoutWaiting()).as("memtable only").isTrue();
        for (int i = 0; i < 1000; i++) s.put(b("k" + i), b("v" + i), i + 1);
        s.flush();
        assertThat(s.stats().tables()).isPositive();
        assertThat(s.readsWithoutWaiting()).as("a table written through the page cache").isTrue();
        s.close();
        assertThatThrownBy(s::readsWithoutWaiting).isInstanceOf(IOException.class);
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
            Residency r = new Residency(seg, 0);
            Residency standing = new Residency(seg, 60_000_000_000L);
            assertThat(r.resident()).isFalse();
            assertThat(standing.resident()).isFalse();
            long sum = 0;
            for (long p = 0; p < seg.byteSize(); p += 4096) sum += seg.get(ValueLayout.JAVA_BYTE, p);
            assertThat(sum).isZero();
            assertThat(r.resident()).isTrue();
            assertThat(standing.resident()).as("an answer stands until it is asked again").isFalse();
        }
    }

    @Test
    void memoryThatIsNotAFileMappingIsResident() {
        assertThat(new Residency(MemorySegment.ofArray(new byte[4096])).resident()).isTrue();
    }
}
