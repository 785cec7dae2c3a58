package dht.storage;

import static dht.storage.LsmStoreTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log's blocks and fragments as the writer lays them out, read back by the reader and by the doc's rules. */
class WalFormatTest {
    private static final int BLOCK = 32768;
    private static final int HEADER = 7;

    @TempDir
    Path dir;

    private Path log() { return dir.resolve("000001.log"); }

    /** A put of key "a" whose body is {@code body} bytes long (21 fixed bytes, the key, the value). */
    private static Entry withBody(int body, long ts) {
        byte[] v = new byte[body - LogRecord.BODY_FIXED - 1];
        Arrays.fill(v, (byte) ts);
        return Entry.value(b("a"), v, ts);
    }

    private static void assertSame(List<Entry> got, List<Entry> written) {
        assertThat(got).hasSameSizeAs(written);
        for (int i = 0; i < written.size(); i++) {
            Entry w = written.get(i), g = got.get(i);
            assertThat(g.key()).as("key %d", i).isEqualTo(w.key());
            assertThat(g.timestamp()).as("timestamp %d", i).isEqualTo(w.timestamp());
            assertThat(g.isTombstone()).as("tombstone %d", i).isEqualTo(w.isTombstone());
            if (!w.isTombstone()) assertThat(g.value()).as("value %d", i).isEqualTo(w.value());
        }
    }

    private static List<String> types(List<WalFiles.Fragment> fs) {
        return fs.stream().map(f -> LogFormat.typeName(f.type())).toList();
    }

    @Test
    void smallRecordsAreOneFullFragmentEach() throws IOException {
        List<Entry> written = List.of(Entry.value(b("k"), b("v"), 1), Entry.tombstone(b("gone"), 2), Entry.value(b("e"), new byte[0], 3));
        long[] starts = WalFiles.write(log(), written);
        List<WalFiles.Fragment> fs = WalFiles.fragments(log());
        assertThat(types(fs)).containsExactly("FULL", "FULL", "FULL");
        assertThat(fs).allMatch(WalFiles.Fragment::crcOk);
        assertThat(fs.get(0).length()).isEqualTo(LogRecord.BODY_FIXED + 2);
        assertThat(fs.stream().mapToLong(WalFiles.Fragment::offset).toArray()).containsExactly(Arrays.copyOf(starts, 3));
        WalFiles.Replayed r = WalFiles.replay(log());
        assertSame(r.entries(), written);
        assertThat(r.outcome()).isEqualTo(new WalReader.Outcome(3, 0, false));
    }

    @Test
    void aRecordSpanningSeveralBlocksIsSplitAtEachBoundary() throws IOException {
        Entry big = withBody(100_000, 7);
        WalFiles.write(log(), List.of(big, Entry.value(b("next"), b("x"), 8)));
        List<WalFiles.Fragment> fs = WalFiles.fragments(log());
        assertThat(types(fs)).containsExactly("FIRST", "MIDDLE", "MIDDLE", "LAST", "FULL");
        assertThat(fs.stream().map(WalFiles.Fragment::offset).toList()).startsWith(0L, (long) BLOCK, 2L * BLOCK, 3L * BLOCK);
        assertThat(fs.get(0).length()).isEqualTo(BLOCK - HEADER);
        assertThat(fs.get(3).length()).isEqualTo(100_000 - 3 * (BLOCK - HEADER));
        assertThat(fs).allMatch(WalFiles.Fragment::crcOk);
        assertSame(WalFiles.replay(log()).entries(), List.of(big, Entry.value(b("next"), b("x"), 8)));
    }

    @Test
    void aRecordExactlyFillingABlockLeavesNoPadding() throws IOException {
        List<Entry> written = List.of(withBody(BLOCK - HEADER, 1), withBody(BLOCK - HEADER, 2), Entry.value(b("c"), b("3"), 3));
        long[] starts = WalFiles.write(log(), written);
        assertThat(starts).containsExactly(0, BLOCK, 2 * BLOCK, 2 * BLOCK + HEADER + LogRecord.BODY_FIXED + 2);
        assertThat(types(WalFiles.fragments(log()))).containsExactly("FULL", "FULL", "FULL");
        assertSame(WalFiles.replay(log()).entries(), written);
    }

    @Test
    void aBlockTailOfExactlyAHeaderGetsAnEmptyFirstFragment() throws IOException {
        List<Entry> written = List.of(withBody(BLOCK - 2 * HEADER, 1), Entry.value(b("b"), b("2"), 2));
        WalFiles.write(log(), written);
        List<WalFiles.Fragment> fs = WalFiles.fragments(log());
        assertThat(types(fs)).containsExactly("FULL", "FIRST", "LAST");
        assertThat(fs.get(1).offset()).isEqualTo(BLOCK - HEADER);
        assertThat(fs.get(1).length()).isZero();
        assertThat(fs.get(2).offset()).isEqualTo(BLOCK);
        assertSame(WalFiles.replay(log()).entries(), written);
    }

    @Test
    void aBlockTailShorterThanAHeaderIsZeroFilled() throws IOException {
        for (int tail = 1; tail < HEADER; tail++) {
            List<Entry> written = List.of(withBody(BLOCK - HEADER - tail, 1), Entry.value(b("b"), b("2"), 2));
            long[] starts = WalFiles.write(log(), written);
            assertThat(starts[1]).as("tail %d", tail).isEqualTo(BLOCK);
            byte[] file = Files.readAllBytes(log());
            assertThat(Arrays.copyOfRange(file, BLOCK - tail, BLOCK)).as("tail %d", tail).containsOnly(0);
            assertThat(types(WalFiles.fragments(log()))).containsExactly("FULL", "FULL");
            WalFiles.Replayed r = WalFiles.replay(log());
            assertSame(r.entries(), written);
            assertThat(r.outcome().damaged()).isFalse();
            assertThat(r.outcome().skippedBytes()).isZero();
        }
    }

    @Test
    void aValueOfSeveralMebibytesFromABorrowedSegmentRoundTrips() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = arena.allocate(5 << 20);
            for (long i = 0; i < v.byteSize(); i += 8) v.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L);
            Entry e = Entry.value(b("big"), v, 42);
            WalFiles.writeBatch(log(), List.of(Entry.value(b("before"), b("1"), 1), e, Entry.value(b("after"), b("2"), 2)));
            List<WalFiles.Fragment> fs = WalFiles.fragments(log());
            assertThat(fs).allMatch(WalFiles.Fragment::crcOk);
            assertThat(fs).hasSize(2 + (int) ((5 << 20) / (BLOCK - HEADER)) + 1);
            WalFiles.Replayed r = WalFiles.replay(log());
            assertThat(r.keys()).containsExactly("before", "big", "after");
            assertThat(MemorySegment.ofArray(r.entries().get(1).value()).mismatch(v)).isEqualTo(-1);
        }
    }

    /** Batches of random sizes through the staging buffer: every fragment well formed, every record back. */
    @Test
    void randomBatchesRoundTrip() throws IOException {
        Random r = new Random(7);
        for (int round = 0; round < 20; round++) {
            List<Entry> written = new ArrayList<>();
            Path log = log();
            try (WalWriter w = new WalWriter(1, log, NioStorageFiles.INSTANCE.create(log))) {
                for (int batch = 0, n = 1 + r.nextInt(6); batch < n; batch++) {
                    List<Entry> es = new ArrayList<>();
                    for (int i = 0, m = 1 + r.nextInt(8); i < m; i++) {
                        byte[] v = new byte[r.nextInt(4) == 0 ? r.nextInt(100_000) : r.nextInt(300)];
                        Arrays.fill(v, (byte) 0x5A); // no zeros: a block tail must be zeroed, not left from an earlier batch
                        int k = written.size() + es.size();
                        es.add(r.nextInt(10) == 0 ? Entry.tombstone(b("k" + k), k) : Entry.value(b("k" + k), v, k));
                    }
                    w.append(es);
                    written.addAll(es);
                }
                assertThat(w.bytes()).isEqualTo(Files.size(log));
            }
            List<WalFiles.Fragment> fs = WalFiles.fragments(log);
            assertThat(fs).allMatch(WalFiles.Fragment::crcOk);
            assertThat(fs.stream().filter(f -> f.type() == LogFormat.FULL || f.type() == LogFormat.LAST).count()).isEqualTo(written.size());
            WalFiles.Replayed got = WalFiles.replay(log);
            assertSame(got.entries(), written);
            assertThat(got.outcome()).isEqualTo(new WalReader.Outcome(written.size(), 0, false));
        }
    }

    @Test
    void sizeCoversEveryFragmentHeader() {
        for (int body : new int[] {22, BLOCK - HEADER, BLOCK, 100_000, 5 << 20}) {
            Entry e = withBody(body, 1);
            assertThat(LogRecord.bodyLength(e)).isEqualTo(body);
            // the most fragments a body can take: an empty FIRST in a block's last 7 bytes, then full blocks
            long fragments = 1 + (body + BLOCK - HEADER - 1) / (BLOCK - HEADER);
            assertThat(LogRecord.size(e)).as("body %d", body).isGreaterThanOrEqualTo(body + fragments * HEADER);
        }
    }
}
