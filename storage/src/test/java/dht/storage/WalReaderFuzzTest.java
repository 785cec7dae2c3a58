package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dht.testkit.FuzzDeadline;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzzes the log reader: any bytes, written as a log file, replay without an exception and yield
 * exactly the records a reader of the format's own (from docs/storage-format.md, below) finds
 * whole, so no entry comes from bytes that were not a valid record. The seed corpus
 * ({@code WalReaderFuzzTestInputs}) holds logs written by {@link WalWriter} ({@link FuzzSeeds}).
 * See docs/fuzzing.md.
 */
class WalReaderFuzzTest {
    @TempDir
    static Path dir;

    @BeforeAll
    static void quiet() { FuzzLogs.off(WalReader.class); }

    @AfterAll
    static void restore() { FuzzLogs.restore(); }

    @FuzzTest(maxDuration = "10s")
    void replayReturnsOnlyWholeRecords(byte[] data) throws Exception {
        Path log = dir.resolve("000001.log");
        Files.write(log, data);
        List<Entry> got = new ArrayList<>();
        WalReader.Outcome[] outcome = new WalReader.Outcome[1];
        FuzzDeadline.run(() -> outcome[0] = WalReader.replay(NioStorageFiles.INSTANCE, log, got::add));
        WalReader.Outcome o = outcome[0];

        Expected want = expected(data);
        assertThat(got).hasSameSizeAs(want.entries);
        for (int i = 0; i < got.size(); i++) assertSame(got.get(i), want.entries.get(i), i);
        assertThat(o.records()).isEqualTo(got.size());
        assertThat(o.skippedBytes()).isBetween(0L, (long) data.length);
        if (!want.problem) assertThat(o).isEqualTo(new WalReader.Outcome(got.size(), 0, false));
        if (o.damaged()) assertThat(want.problem).isTrue();
    }

    private static void assertSame(Entry g, Entry w, int i) {
        assertThat(g.key()).as("key %d", i).isEqualTo(w.key());
        assertThat(g.timestamp()).as("timestamp %d", i).isEqualTo(w.timestamp());
        assertThat(g.isTombstone()).as("tombstone %d", i).isEqualTo(w.isTombstone());
        if (!w.isTombstone()) assertThat(g.value()).as("value %d", i).isEqualTo(w.value());
    }

    /** The entries the log holds, and whether anything in it was not part of a whole record. */
    private record Expected(List<Entry> entries, boolean problem) {
    }

    /**
     * Walks the file by the format's rules: 32 KiB blocks, a tail under 7 bytes is padding; a
     * fragment {@code crc u32 | len u16 | type u8 | payload} that crosses its block, is cut, fails
     * its CRC-32C (over type and payload) or has an unknown type drops the record open and sends
     * the walk to the next block, or, for a failed CRC alone, to where its length leads when whole
     * fragments from there end exactly at the block's padding or the file's end. A record is FULL,
     * or FIRST MIDDLE* LAST in walk order.
     */
    private static Expected expected(byte[] d) {
        final int block = 32768, header = 7;
        List<Entry> out = new ArrayList<>();
        boolean problem = false;
        byte[] body = null; // the record being assembled, or null
        int p = 0;
        while (p < d.length) {
            int room = block - p % block;
            if (room < header) {
                p += room;
                continue;
            }
            if (d.length - p < header) {
                problem = true;
                break;
            }
            int len = (d[p + 4] & 0xFF) | (d[p + 5] & 0xFF) << 8;
            int type = d[p + 6];
            CRC32C c = new CRC32C();
            boolean whole = len <= room - header && d.length - p - header >= len;
            if (whole) c.update(d, p + 6, len + 1);
            boolean crcFailed = whole && (int) c.getValue() != le32(d, p);
            if (!whole || crcFailed || type < 1 || type > 4) {
                problem = true;
                body = null;
                int next = p + header + len;
                p = crcFailed && wholeTo(d, next, p - p % block + block) ? next : p + room;
                continue;
            }
            byte[] payload = Arrays.copyOfRange(d, p + header, p + header + len);
            p += header + len;
            if (type == 1 || type == 2) { // FULL, FIRST
                if (body != null) problem = true;
                body = payload;
            } else if (body == null) { // MIDDLE or LAST without a FIRST
                problem = true;
                continue;
            } else {
                body = concat(body, payload);
            }
            if (type == 1 || type == 4) { // the record ends
                Entry e = decode(body);
                if (e == null) problem = true;
                else out.add(e);
                body = null;
            }
        }
        if (body != null) problem = true;
        return new Expected(out, problem);
    }

    /** Whether whole fragments, one at least, run from {@code q} to {@code blockEnd}'s padding (under 7 bytes) or the file's end. */
    private static boolean wholeTo(byte[] d, int q, int blockEnd) {
        int x = q, fragments = 0;
        while (x < d.length && blockEnd - x >= 7) {
            if (d.length - x < 7) return false;
            int len = (d[x + 4] & 0xFF) | (d[x + 5] & 0xFF) << 8;
            int type = d[x + 6];
            if (len > blockEnd - x - 7 || d.length - x - 7 < len || type < 1 || type > 4) return false;
            CRC32C c = new CRC32C();
            c.update(d, x + 6, len + 1);
            if ((int) c.getValue() != le32(d, x)) return false;
            fragments++;
            x += 7 + len;
        }
        return fragments > 0;
    }

    /** A body {@code type u8 | timestamp i64 | expiry i64 | key_len u32 | key | value}: a PUT (1) or a DELETE (2) with no value. */
    private static Entry decode(byte[] b) {
        if (b.length < 21) return null;
        long ts = le32(b, 1) & 0xFFFFFFFFL | (long) le32(b, 5) << 32;
        int kl = le32(b, 17);
        if (kl < 0 || kl > b.length - 21) return null;
        byte[] key = Arrays.copyOfRange(b, 21, 21 + kl);
        byte[] value = Arrays.copyOfRange(b, 21 + kl, b.length);
        if (b[0] == 2) return value.length == 0 ? Entry.tombstone(key, ts) : null;
        return b[0] == 1 ? Entry.value(key, value, ts) : null;
    }

    private static int le32(byte[] b, int at) {
        return (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 24;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
