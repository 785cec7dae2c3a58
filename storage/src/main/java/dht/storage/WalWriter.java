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

    WalWriter(long number, Path path, StorageFiles.WritableFile file) {
        this.number = number;
        this.path = path;
        this.file = file;
    }

    void append(List<byte[]> records) throws IOException {
        int total = 0;
        for (byte[] r : records) total += r.length;
        ByteBuffer buf = ByteBuffer.allocate(total);
        for (byte[] r : records) buf.put(r);
        buf.flip();
        file.write(buf);
        bytes += total;
    }

    void sync() throws IOException { file.sync(); }

    long bytes() { return bytes; }

    @Override
    public void close() throws IOException { file.close(); }
}
