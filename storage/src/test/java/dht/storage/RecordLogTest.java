package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordLogTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void entriesWrittenAreReadBackInOrder() throws Exception {
        Path p = dir.resolve("1.hints");
        try (RecordLog.Writer w = RecordLog.create(p)) {
            w.append(List.of(Entry.value(b("a"), b("1"), 10), Entry.tombstone(b("b"), 11)));
            w.append(List.of(Entry.value(b("c"), new byte[100_000], 12)));
            w.sync();
            assertThat(w.bytes()).isEqualTo(Files.size(p));
        }
        List<Entry> read = new ArrayList<>();
        RecordLog.ReadResult r = RecordLog.read(p, read::add);
        assertThat(r).isEqualTo(new RecordLog.ReadResult(3, 0, false));
        assertThat(read).extracting(e -> new String(e.key(), StandardCharsets.UTF_8)).containsExactly("a", "b", "c");
        assertThat(read.get(1).isTombstone()).isTrue();
        assertThat(read.get(2).timestamp()).isEqualTo(12);
        assertThat(read.get(2).value()).hasSize(100_000);
    }

    @Test
    void aTornTailIsDroppedAndTheRestKept() throws Exception {
        Path p = dir.resolve("1.hints");
        try (RecordLog.Writer w = RecordLog.create(p)) {
            w.append(List.of(Entry.value(b("a"), b("1"), 10)));
            w.append(List.of(Entry.value(b("b"), new byte[5000], 11)));
        }
        try (FileChannel c = FileChannel.open(p, StandardOpenOption.WRITE)) {
            c.truncate(Files.size(p) - 100);
        }
        List<Entry> read = new ArrayList<>();
        RecordLog.ReadResult r = RecordLog.read(p, read::add);
        assertThat(read).hasSize(1);
        assertThat(r.damaged()).isFalse();
        assertThat(r.skippedBytes()).isPositive();
    }

    @Test
    void eachRecordIsReadBackAloneAtItsOffset() throws Exception {
        Path p = dir.resolve("1.hints");
        List<Entry> written = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        try (RecordLog.Writer w = RecordLog.create(p)) {
            for (int i = 0; i < 200; i++) { // values of many sizes: records cross blocks and leave block tails
                Entry e = i % 7 == 0 ? Entry.tombstone(b("t" + i), i) : Entry.value(b("k" + i), new byte[(i * 997) % 40_000], i);
                offsets.add(w.bytes());
                written.add(e);
                w.append(List.of(e));
            }
        }
        List<Long> readOffsets = new ArrayList<>();
        List<Entry> read = new ArrayList<>();
        RecordLog.readWithOffsets(p, (offset, e) -> {
            readOffsets.add(offset);
            read.add(e);
        });
        assertThat(read).isEqualTo(written);
        try (FileChannel c = FileChannel.open(p, StandardOpenOption.READ)) {
            for (int i = 0; i < written.size(); i++) {
                assertThat(RecordLog.readAt(c, offsets.get(i))).as("record %d at its append offset", i).isEqualTo(written.get(i));
                assertThat(RecordLog.readAt(c, readOffsets.get(i))).as("record %d at its read offset", i).isEqualTo(written.get(i));
            }
            assertThat(RecordLog.readAt(c, offsets.get(5) + 3)).as("inside a record").isNull();
            assertThat(RecordLog.readAt(c, Files.size(p))).as("past the end").isNull();
        }
        try (FileChannel c = FileChannel.open(p, StandardOpenOption.WRITE)) {
            c.write(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}), offsets.get(9) + 10); // damage inside record 9
        }
        try (FileChannel c = FileChannel.open(p, StandardOpenOption.READ)) {
            assertThat(RecordLog.readAt(c, offsets.get(9))).isNull();
            assertThat(RecordLog.readAt(c, offsets.get(10))).isEqualTo(written.get(10));
        }
    }
}
