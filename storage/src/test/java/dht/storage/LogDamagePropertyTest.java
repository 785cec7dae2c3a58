package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random damage to logs, many times over, against the format's promise: a flipped byte loses the
 * record it falls in, or also the records that start after it in its block when the reader cannot
 * tell where the next one starts, and nothing else; a cut
 * loses the record it falls in and nothing before it. Values often hold the bytes of whole logs,
 * which are never replayed.
 */
class LogDamagePropertyTest {
    private static final int BLOCK = LogFormat.BLOCK;

    @TempDir
    Path dir;

    /** A written log: its entries, each fragment's {offset, header+payload length, record}, each record's first fragment and end. */
    private record Log(Path path, List<Entry> entries, List<long[]> fragments, long[] firstFragment, long[] recordEnd) {
        /** The fragment holding byte {@code at}, or null (a block tail). */
        long[] fragmentAt(long at) {
            int lo = 0, hi = fragments.size() - 1;
            while (lo < hi) { // the last fragment starting at or before at
                int mid = (lo + hi + 1) >>> 1;
                if (fragments.get(mid)[0] <= at) lo = mid;
                else hi = mid - 1;
            }
            long[] f = fragments.get(lo);
            return at >= f[0] && at < f[0] + f[1] ? f : null;
        }
    }

    private Log write(Random r, int records) throws IOException {
        List<byte[]> embedded = new ArrayList<>();
        Path e = dir.resolve("embedded.log");
        for (int k = 0; k < 4; k++) {
            List<Entry> inner = new ArrayList<>();
            for (int j = 0; j <= k; j++) inner.add(Entry.value(key("e" + k + "." + j), new byte[10 * j], 1000 + j));
            WalFiles.write(e, inner);
            embedded.add(Files.readAllBytes(e));
        }
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            byte[] value;
            if (r.nextInt(4) == 0) { // a value that is itself a log
                value = embedded.get(r.nextInt(embedded.size()));
            } else {
                value = new byte[r.nextInt(8) == 0 ? r.nextInt(80_000) : r.nextInt(200)];
                r.nextBytes(value);
            }
            entries.add(r.nextInt(10) == 0 ? Entry.tombstone(key("k" + i), i) : Entry.value(key("k" + i), value, i));
        }
        Path p = dir.resolve("000001.log");
        WalFiles.write(p, entries);
        List<long[]> fragments = new ArrayList<>();
        int record = -1;
        for (WalFiles.Fragment f : WalFiles.fragments(p)) {
            if (f.type() == LogFormat.FULL || f.type() == LogFormat.FIRST) record++;
            fragments.add(new long[] {f.offset(), LogFormat.HEADER + f.length(), record});
        }
        long[] first = new long[records], end = new long[records];
        for (long[] f : fragments) {
            if (end[(int) f[2]] == 0) first[(int) f[2]] = f[0];
            end[(int) f[2]] = f[0] + f[1];
        }
        return new Log(p, entries, fragments, first, end);
    }

    private static byte[] key(String s) { return s.getBytes(StandardCharsets.UTF_8); }

    private static void flip(Path p, long offset, int mask) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.seek(offset);
            int v = f.read();
            f.seek(offset);
            f.write(v ^ mask);
        }
    }

    private static void assertReplayed(Log log, WalFiles.Replayed got, TreeSet<Integer> lost, String what) {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < log.entries().size(); i++) if (!lost.contains(i)) expected.add("k" + i);
        assertThat(got.keys()).as(what).containsExactlyElementsOf(expected);
        for (Entry e : got.entries()) {
            Entry w = log.entries().get(Integer.parseInt(new String(e.key(), StandardCharsets.UTF_8).substring(1)));
            assertThat(e.timestamp()).as(what).isEqualTo(w.timestamp());
            assertThat(e.isTombstone()).as(what).isEqualTo(w.isTombstone());
            if (!w.isTombstone()) assertThat(e.value()).as(what).isEqualTo(w.value());
        }
        assertThat(got.outcome().records()).as(what).isEqualTo(expected.size());
    }

    /**
     * The reader's promise for flipped bytes, block by block: the first damaged fragment in a block
     * loses its record; the reader goes on where that fragment's length leads when intact fragments
     * run from there to the block's end (a real fragment start with no damage after it: what a
     * damaged length leads to elsewhere is taken to fail), losing the records it skips; otherwise
     * every record starting after it in the block is lost too.
     */
    @Test
    void flippedBytesLoseTheirRecordOrTheRestOfTheirBlockOnly() throws IOException {
        Random r = new Random(20261128);
        for (int round = 0; round < 300; round++) {
            Log log = write(r, 20 + r.nextInt(200));
            long size = Files.size(log.path());
            StringBuilder what = new StringBuilder("round " + round + ", flips at");
            TreeMap<Long, long[]> hit = new TreeMap<>();
            for (int k = 0, n = 1 + r.nextInt(3); k < n; k++) {
                long at = (long) (r.nextDouble() * size);
                flip(log.path(), at, 1 + r.nextInt(255));
                what.append(' ').append(at);
                long[] f = log.fragmentAt(at);
                if (f != null) hit.put(f[0], f); // else a block tail: never read
            }
            byte[] now = Files.readAllBytes(log.path());
            Set<Long> starts = new HashSet<>();
            for (long[] g : log.fragments()) starts.add(g[0]);
            TreeSet<Integer> lost = new TreeSet<>();
            boolean resumedInPlace = false;
            for (long block : hit.keySet().stream().map(o -> o / BLOCK).distinct().toList()) {
                long blockEnd = (block + 1) * BLOCK;
                long[] f = hit.ceilingEntry(block * BLOCK).getValue();
                long q = f[0] + LogFormat.HEADER + ((now[(int) f[0] + 4] & 0xFF) | (now[(int) f[0] + 5] & 0xFF) << 8);
                Long nextHit = hit.ceilingKey(q);
                boolean resumes = q < size && blockEnd - q >= LogFormat.HEADER && starts.contains(q)
                        && (nextHit == null || nextHit >= blockEnd);
                resumedInPlace |= resumes;
                lost.add((int) f[2]);
                for (long[] g : log.fragments()) {
                    boolean startsRecord = log.firstFragment()[(int) g[2]] == g[0];
                    if (g[0] > f[0] && g[0] < (resumes ? q : blockEnd) && startsRecord) lost.add((int) g[2]);
                }
            }
            WalFiles.Replayed got = WalFiles.replay(log.path());
            assertReplayed(log, got, lost, what.toString());
            // damage, not a crash's torn tail, when an intact fragment is read after the first hit
            long firstBlock = hit.isEmpty() ? Long.MAX_VALUE : hit.firstKey() / BLOCK;
            boolean intactAfter = resumedInPlace || log.fragments().stream().anyMatch(g -> g[0] / BLOCK > firstBlock
                    && hit.values().stream().noneMatch(f -> f[0] / BLOCK == g[0] / BLOCK && f[0] <= g[0]));
            assertThat(got.outcome().damaged()).as(what.toString()).isEqualTo(intactAfter);
        }
    }

    @Test
    void aCutLosesTheRecordItFallsInAndNothingBefore() throws IOException {
        Random r = new Random(11);
        for (int round = 0; round < 200; round++) {
            Log log = write(r, 5 + r.nextInt(60));
            long cut = (long) (r.nextDouble() * Files.size(log.path()));
            try (RandomAccessFile f = new RandomAccessFile(log.path().toFile(), "rw")) {
                f.setLength(cut);
            }
            TreeSet<Integer> lost = new TreeSet<>();
            long tornFrom = cut;
            for (int i = 0; i < log.entries().size(); i++) {
                if (log.recordEnd()[i] > cut) {
                    lost.add(i);
                    tornFrom = Math.min(tornFrom, log.firstFragment()[i]);
                }
            }
            WalFiles.Replayed got = WalFiles.replay(log.path());
            String what = "round " + round + ", cut at " + cut;
            assertReplayed(log, got, lost, what);
            assertThat(got.outcome().damaged()).as(what).isFalse();
            assertThat(got.outcome().skippedBytes()).as(what).isEqualTo(cut - tornFrom);
        }
    }
}
