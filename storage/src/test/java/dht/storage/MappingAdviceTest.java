package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The madvise calls on table mappings, as Linux reports them in /proc/self/smaps ("rr": random read). */
class MappingAdviceTest {
    private static final Path SMAPS = Path.of("/proc/self/smaps");

    @TempDir
    Path dir;

    @BeforeAll
    static void linuxOnly() {
        assumeTrue(Files.isReadable(SMAPS), "needs Linux's /proc/self/smaps");
    }

    private Path writeTable(String name) throws IOException {
        List<Entry> es = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            es.add(Entry.value(String.format("key%08d", i).getBytes(StandardCharsets.UTF_8), new byte[100], i));
        }
        Path p = dir.resolve(name);
        TableWriter.write(NioStorageFiles.INSTANCE, p, es.iterator(), es.size(), StoreOptions.defaults());
        return p;
    }

    /** The VmFlags of the one mapping of {@code file}; fails if there is not exactly one. */
    private static List<String> vmFlags(Path file) throws IOException {
        List<String> lines = Files.readAllLines(SMAPS);
        List<String> found = new ArrayList<>();
        boolean inside = false;
        for (String line : lines) {
            if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) inside = line.endsWith(" " + file.toAbsolutePath());
            else if (inside && line.startsWith("VmFlags:")) found.add(line.substring("VmFlags:".length()).trim());
        }
        assertThat(found).as("mappings of %s", file).hasSize(1);
        return List.of(found.getFirst().split(" "));
    }

    @Test
    void anOpenTableIsMappedForRandomReadsAndAPlainMappingIsNot() throws IOException {
        Path table = writeTable("000001.sst");
        Path plain = writeTable("000002.sst");
        Table t = Table.open(NioStorageFiles.INSTANCE, table, 1);
        t.retain();
        try (Arena arena = Arena.ofConfined()) {
            NioStorageFiles.INSTANCE.map(plain, arena);
            assertThat(vmFlags(table)).contains("rr");
            assertThat(vmFlags(plain)).doesNotContain("rr");
            // Reads still work on the advised mapping, point and streaming.
            assertThat(t.get("key00012345".getBytes(StandardCharsets.UTF_8))).isNotNull();
            int n = 0;
            for (var it = t.iterator(null, null); it.hasNext(); it.next()) n++;
            assertThat(n).isEqualTo(20_000);
            for (int i = 0; i < t.blockCount(); i++) t.verifyBlock(i);
        } finally {
            t.release();
        }
    }

    @Test
    void adviceSucceedsOnAMappingAndIsHarmlessOnAnEmptyOne() throws IOException {
        Path file = writeTable("000003.sst");
        Path empty = Files.createFile(dir.resolve("empty"));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = NioStorageFiles.INSTANCE.map(file, arena);
            assertThat(MappingAdvice.random(seg)).isTrue();
            assertThat(MappingAdvice.willNeed(seg, 5000, 1 << 20)).as("unaligned start, past the end").isTrue();
            MemorySegment none = NioStorageFiles.INSTANCE.map(empty, arena);
            assertThat(MappingAdvice.random(none)).isFalse();
            assertThat(MappingAdvice.willNeed(none, 0, 4096)).isFalse();
            assertThat(MappingAdvice.willNeed(seg, seg.byteSize(), 4096)).as("nothing left to read").isFalse();
        }
    }
}
