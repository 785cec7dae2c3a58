package dht.storage;

import java.io.Closeable;
import java.io.IOException;
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
    private final ByteBuffer staging = ByteBuffer.allocate(1 << 20);

    WalWriter(long number, Path path, StorageFiles.WritableFile file) {
        this.number = number;
        this.path = path;
        this.file = file;
    }

    /**
     * Appends the records with as few write() calls as the staging buffer allows. The buffer is
     * reused: only the group-commit leader appends.
     */
    void append(List<byte[]> records) throws IOException {
        long total = 0;
        staging.clear();
        for (byte[] r : records) {
            int off = 0;
            while (off < r.length) {
                if (!staging.hasRemaining()) drain();
                int n = Math.min(staging.remaining(), r.length - off);
                staging.put(r, off, n);
                off += n;
            }
            total += r.length;
        }
        drain();
        bytes += total;
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
