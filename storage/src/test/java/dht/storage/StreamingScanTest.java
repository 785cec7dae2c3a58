package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The borrowing scan ({@link Store#scan(byte[], byte[], ReadBudget)}): the merge hands out the
 * newest version of each key with its value read in place, large values are read from the
 * mapping even in a compressed table (they have raw blocks of their own), and what the scan
 * decompresses onto the heap is reserved in the budget while read and given back by the end.
 */
class StreamingScanTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) { return s.getBytes(StandardCharsets.UTF_8); }

    /** Compressible: lz4 would store a block of these compressed. */
    private static byte[] text(int length, int seed) {
        byte[] line = ("value " + seed + " of some text that repeats\n").getBytes(StandardCharsets.US_ASCII);
        byte[] v = new byte[length];
        for (int i = 0; i < length; i++) v[i] = line[i % line.length];
        return v;
    }

    /** A budget that counts what is held, and the most it ever held, taking at most {@code limit}. */
    private static final class CountingBudget implements ReadBudget {
        final long limit;
        final AtomicLong held = new AtomicLong();
        final AtomicLong most = new AtomicLong();
        final AtomicLong asked = new AtomicLong();

        CountingBudget(long limit) {
            this.limit = limit;
        }

        @Override
        public boolean tryReserve(int bytes) {
            asked.incrementAndGet();
            if (held.get() + bytes > limit) return false;
            most.accumulateAndGet(held.addAndGet(bytes), Math::max);
            return true;
        }

        @Override
        public void release(int bytes) {
            held.addAndGet(-bytes);
        }
    }

    private static StoreOptions options(int blockSize) {
        // No compaction: the scan must merge every table the test writes.
        return StoreOptions.defaults().withCompression(Compression.LZ4).withBlockSize(blockSize).withCompaction(100, 200);
    }

    private static List<Entry> scanAll(Store s, ReadBudget budget, TreeMap<String, byte[]> into) throws Exception {
        List<Entry> seen = new ArrayList<>();
        try (CloseableIterator<Entry> it = s.scan(b("k"), b("l"), budget)) {
            while (it.hasNext()) {
                Entry e = it.next();
                seen.add(e);
                into.put(new String(e.key(), StandardCharsets.UTF_8), e.isTombstone() ? null : e.value());
            }
        }
        return seen;
    }

    @Test
    void largeValuesOfACompressedStoreAreMergedAndReadInPlaceWithoutHeapReservations() throws Exception {
        int size = 256 << 10;
        TreeMap<String, byte[]> expected = new TreeMap<>();
        try (LsmStore s = LsmStore.open(dir, options(4096))) {
            // Three tables and the memtable, each with a version of every key: the newest is spread among them.
            for (int round = 0; round < 4; round++) {
                for (int k = 0; k < 8; k++) {
                    String key = "k" + k;
                    long ts = (k + round) % 4 == 0 ? 100 + round : round; // some keys' newest version is in an older table
                    s.put(b(key), text(size, round * 10 + k), ts);
                }
                if (round < 3) s.flush();
            }
            for (int k = 0; k < 8; k++) expected.put("k" + k, s.get(b("k" + k)).value());
            CountingBudget refuseAll = new CountingBudget(0);
            TreeMap<String, byte[]> got = new TreeMap<>();
            List<Entry> seen = scanAll(s, refuseAll, got);
            assertThat(got.keySet()).isEqualTo(expected.keySet());
            for (String k : expected.keySet()) assertThat(got.get(k)).as(k).isEqualTo(expected.get(k));
            assertThat(refuseAll.asked.get()).as("reservations asked for: every large value is in a raw block").isZero();
            assertThat(seen).allMatch(Entry::isBorrowed);
            // The plain scan hands out arrays, the same ones.
            try (CloseableIterator<Entry> it = s.scan(b("k"), b("l"))) {
                while (it.hasNext()) {
                    Entry e = it.next();
                    assertThat(e.isBorrowed()).isFalse();
                    assertThat(e.value()).isEqualTo(expected.get(new String(e.key(), StandardCharsets.UTF_8)));
                }
            }
        }
    }

    @Test
    void decompressedBlocksAreReservedWhileReadAndAllGivenBackAtTheEnd() throws Exception {
        int blockSize = 64 << 10;
        TreeMap<String, byte[]> expected = new TreeMap<>();
        try (LsmStore s = LsmStore.open(dir, options(blockSize))) {
            for (int t = 0; t < 3; t++) {
                for (int k = t; k < 600; k += 2) {
                    byte[] v = text(1000, k * 7 + t);
                    s.put(b(String.format("k%04d", k)), v, 10 + t);
                    expected.put(String.format("k%04d", k), v);
                }
                s.flush();
            }
            CountingBudget budget = new CountingBudget(Long.MAX_VALUE);
            TreeMap<String, byte[]> got = new TreeMap<>();
            scanAll(s, budget, got);
            assertThat(got).containsExactlyEntriesOf(expected);
            assertThat(budget.asked.get()).as("compressed blocks read").isPositive();
            assertThat(budget.most.get()).as("at most one block per table at a time")
                    .isPositive().isLessThanOrEqualTo(3L * (blockSize + 2000));
            assertThat(budget.held.get()).as("held after the scan").isZero();

            // A budget for one block only: the scan fails with the refusal, and gives everything back.
            CountingBudget small = new CountingBudget(blockSize + 2000);
            assertThatThrownBy(() -> scanAll(s, small, new TreeMap<>()))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(ReadBudgetExceededException.class);
            assertThat(small.held.get()).as("held after the refused scan is closed").isZero();

            // Abandoned midway and closed: nothing held.
            CountingBudget midway = new CountingBudget(Long.MAX_VALUE);
            try (CloseableIterator<Entry> it = s.scan(b("k"), b("l"), midway)) {
                for (int i = 0; i < 10 && it.hasNext(); i++) it.next();
                assertThat(midway.held.get()).isPositive();
            }
            assertThat(midway.held.get()).isZero();
        }
    }
}
