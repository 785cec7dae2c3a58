package dht.storage;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dht.testkit.FuzzDeadline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzzes the table reader: any bytes, written as a table file, either fail to open or read with a
 * {@link CorruptionException} or another {@link IOException} (an iterator wraps it in an
 * {@link UncheckedIOException}), or read; never an unchecked exception, an
 * {@link OutOfMemoryError} or an endless loop. The seed corpus ({@code TableFuzzTestInputs})
 * holds tables written by {@link TableWriter} ({@link FuzzSeeds}). See docs/fuzzing.md.
 */
class TableFuzzTest {
    @TempDir
    static Path dir;

    @BeforeAll
    static void quiet() { FuzzLogs.off(Table.class); }

    @AfterAll
    static void restore() { FuzzLogs.restore(); }

    @FuzzTest(maxDuration = "10s")
    void readsOrFailsAsCorruption(byte[] data) throws Exception {
        Path path = dir.resolve("000001.sst");
        Files.write(path, data);
        FuzzDeadline.run(() -> {
            Table t;
            try {
                t = Table.open(NioStorageFiles.INSTANCE, path, 1);
            } catch (IOException e) {
                return; // refused: the documented outcome
            }
            t.retain();
            try {
                read(t);
            } finally {
                t.release();
            }
        });
    }

    /** Every way the store reads a table: scans, bounded scans, point reads, block checks. */
    private static void read(Table t) {
        List<byte[]> keys = new ArrayList<>();
        keys.add(new byte[0]);
        keys.add(new byte[] {'k'});
        keys.add(new byte[] {(byte) 0xFF, (byte) 0xFF});
        try {
            for (Iterator<Entry> it = t.iterator(null, null); it.hasNext(); ) {
                Entry e = it.next();
                if (keys.size() < 64) keys.add(e.key());
                e.value();
            }
        } catch (UncheckedIOException e) {
            expectIoCause(e);
        }
        try {
            for (Iterator<Entry> it = t.borrowingIterator(); it.hasNext(); ) it.next().valueLength();
        } catch (UncheckedIOException e) {
            expectIoCause(e);
        }
        for (byte[] k : keys) {
            try {
                t.mightContain(k);
                t.get(k);
            } catch (CorruptionException e) {
                // the documented outcome
            }
            try {
                Iterator<Entry> it = t.iterator(k, new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
                for (int i = 0; i < 4 && it.hasNext(); i++) it.next();
            } catch (UncheckedIOException e) {
                expectIoCause(e);
            }
        }
        for (int i = 0; i < t.blockCount(); i++) {
            try {
                t.checkBlock(i);
            } catch (CorruptionException e) {
                // the documented outcome
            }
        }
    }

    private static void expectIoCause(UncheckedIOException e) {
        if (!(e.getCause() instanceof CorruptionException)) throw new AssertionError("an iterator failed without a CorruptionException", e);
    }
}
