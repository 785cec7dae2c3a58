package dht.storage;

import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * Appends batches of encoded log records to one log file. Only the current group-commit leader
 * appends; {@link #sync} may also be called by the periodic syncer, concurrently.
 */
final class WalWriter implements Closeable {
    final long number;
    final Path path;
    private final StorageFiles.WritableFile file;
    private volatile long bytes;
    /**
     * Below half a G1 region (1 MiB at the smallest), so it is never a humongous object: a new one
     * comes with every log file, which is every memtable.
     */
    private final ByteBuffer staging = ByteBuffer.allocate(256 << 10);
    private final MemorySegment stagingSegment = MemorySegment.ofBuffer(staging);
    /** One object for every put, not a new method reference each time. */
    private final Bytes.Drain drainer = this::drain;

    WalWriter(long number, Path path, StorageFiles.WritableFile file) {
        this.number = number;
        this.path = path;
        this.file = file;
    }

    /**
     * Appends the records of {@code entries}, each its {@code heads} entry ({@link LogRecord#head})
     * followed by its value, with as few write() calls as the staging buffer allows. The buffer is
     * reused: only the group-commit leader appends. A value is copied from where it is (an array or
     * a borrowed segment) straight into the buffer, never into a record of its own.
     */
    void append(List<byte[]> heads, List<Entry> entries) throws IOException {
        long total = 0;
        staging.clear();
        for (int i = 0; i < heads.size(); i++) {
            byte[] head = heads.get(i);
            stage(head);
            total += head.length;
            Entry e = entries.get(i);
            if (e.isBorrowed()) {
                Bytes.putInPieces(e.valueSegment(), staging, stagingSegment, null, drainer);
            } else if (!e.isTombstone()) {
                stage(e.value());
            }
            total += e.valueLength();
        }
        drain();
        bytes += total;
    }

    private void stage(byte[] b) throws IOException {
        Bytes.putInPieces(b, staging, drainer);
    }

    private void drain() throws IOException {
        staging.flip();
        file.write(staging);
        staging.clear();
    }

    void sync() throws IOException { file.sync(); }

    long bytes() { return bytes; }

    @Override
    public void close() throws IOException { file.close(); }
}
