package dht.storage;

import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Appends batches of log records to one log file, framed in blocks and fragments
 * ({@link LogFormat}). Only the current group-commit leader appends; {@link #sync} may also be
 * called by the periodic syncer, concurrently.
 *
 * <p>Invariant: {@link #blockOffset} is where the file's end lies within its current block, so a
 * new writer starts a new, empty file.
 *
 * <p>An append fails once the file has lost its name (deleted under the running store, or its
 * whole directory): writes into an unlinked file succeed, and a black-box tester's node went on
 * acknowledging writes that no restart could find. Checked at most every {@link #NAME_CHECK_NANOS}
 * (a stat each time), so only the writes of that last moment are acknowledged unseen; the store
 * then refuses writes, and starts a new log if its directory is still there.
 */
final class WalWriter implements Closeable {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LsmStore.class);
    final long number;
    final Path path;
    private final StorageFiles.WritableFile file;
    private volatile long bytes;
    private int blockOffset;
    /**
     * Below half a G1 region (1 MiB at the smallest), so it is never a humongous object: a new one
     * comes with every log file, which is every memtable. Holds several whole fragments.
     */
    private final ByteBuffer staging = ByteBuffer.allocate(256 << 10);
    private final MemorySegment stagingSegment = MemorySegment.ofBuffer(staging);
    private final byte[] stagingArray = staging.array();
    /** Where {@link #append(List)} builds each record's head; grows with the longest key. */
    private byte[] scratchHead = new byte[LogRecord.BODY_FIXED + 64];
    private static final byte[] ZEROS = new byte[LogFormat.HEADER];
    static final long NAME_CHECK_NANOS = 100_000_000L;
    /** When an append last found the file under its name (nanoTime); only the leader appends. */
    private long namedAt = System.nanoTime();

    WalWriter(long number, Path path, StorageFiles.WritableFile file) {
        this.number = number;
        this.path = path;
        this.file = file;
    }

    /**
     * Appends the records of {@code entries}, each body its head ({@link LogRecord#head}: built in
     * a scratch array this writer reuses, so a write allocates nothing here) followed by its value,
     * with as few write() calls as the staging buffer allows. Each fragment is built whole in the
     * buffer and its CRC taken there; a value is copied from where it is (an array or a borrowed
     * segment) straight into the buffer, never into a record of its own. The buffer is reused:
     * only the group-commit leader appends.
     */
    void append(List<Entry> entries) throws IOException {
        long total = 0;
        staging.clear();
        for (Entry e : entries) {
            int n = LogRecord.BODY_FIXED + e.key().length;
            if (scratchHead.length < n) scratchHead = new byte[Math.max(n, 2 * scratchHead.length)];
            LogRecord.head(e, scratchHead);
            total += appendRecord(scratchHead, n, e);
        }
        drain();
        bytes += total;
        long now = System.nanoTime();
        if (now - namedAt >= NAME_CHECK_NANOS) {
            if (!Files.exists(path)) {
                throw new IOException("the write-ahead log " + path + " is gone: deleted under the running store"
                        + (Files.isDirectory(path.getParent()) ? "" : ", with its directory"));
            }
            namedAt = now;
        }
    }

    /** Stages one record's fragments (and any block padding before them); returns the bytes staged. */
    private long appendRecord(byte[] head, int headLength, Entry e) throws IOException {
        MemorySegment value = e.isTombstone() ? null : e.valueSegment();
        long valueLength = value == null ? 0 : value.byteSize();
        long left = headLength + valueLength; // body bytes not yet staged
        long headDone = 0, valueDone = 0;
        long staged = 0;
        boolean first = true;
        do {
            int room = LogFormat.BLOCK - blockOffset;
            if (room < LogFormat.HEADER) {
                // too small for a header: zeros, and the next fragment starts the next block
                ensureRoom(room);
                staging.put(ZEROS, 0, room);
                staged += room;
                blockOffset = 0;
                room = LogFormat.BLOCK;
            }
            int n = (int) Math.min(left, room - LogFormat.HEADER);
            boolean last = n == left;
            ensureRoom(LogFormat.HEADER + n);
            int at = staging.position();
            int p = at + LogFormat.HEADER;
            if (headDone < headLength) {
                int h = (int) Math.min(headLength - headDone, n);
                System.arraycopy(head, (int) headDone, stagingArray, p, h);
                headDone += h;
                p += h;
            }
            int v = at + LogFormat.HEADER + n - p;
            if (v > 0) {
                MemorySegment.copy(value, ValueLayout.JAVA_BYTE, valueDone, stagingSegment, ValueLayout.JAVA_BYTE, p, v);
                valueDone += v;
            }
            stagingArray[at + 6] = LogFormat.type(first, last);
            stagingArray[at + 4] = (byte) n;
            stagingArray[at + 5] = (byte) (n >>> 8);
            Bytes.putInt(stagingArray, at, LogFormat.crc(stagingArray, at + 6, n));
            staging.position(at + LogFormat.HEADER + n);
            blockOffset += LogFormat.HEADER + n;
            staged += LogFormat.HEADER + n;
            left -= n;
            first = false;
        } while (left > 0);
        return staged;
    }

    /** Drains the staging buffer unless {@code n} more bytes fit in it. */
    private void ensureRoom(int n) throws IOException {
        if (staging.remaining() < n) drain();
    }

    private void drain() throws IOException {
        staging.flip();
        if (staging.hasRemaining()) file.write(staging);
        staging.clear();
    }

    void sync() throws IOException { file.sync(); }

    long bytes() { return bytes; }

    @Override
    public void close() throws IOException { file.close(); }

    /**
     * Syncs and closes this log once rotation replaced it (and {@code dir}, which now names its
     * successor, if {@code syncDirectory}). A failed sync still closes it: its memtable is queued for
     * flush, which makes the data durable anyway, and a log left open would be a file handle lost at
     * every log switch.
     */
    void retire(StorageFiles files, Path dir, boolean syncDirectory) {
        if (syncDirectory) {
            try {
                files.syncDirectory(dir);
            } catch (IOException e) {
                log.warn("syncing {} after a log switch: {} (the flush just queued syncs it again)", dir, e.toString());
            }
        }
        try {
            sync();
        } catch (IOException e) {
            log.warn("syncing the replaced log {}: {} (its memtable's flush makes it durable)", path, e.toString());
        }
        try {
            close();
        } catch (IOException e) {
            log.warn("closing the replaced log {}: {}", path, e.toString());
        }
    }
}
