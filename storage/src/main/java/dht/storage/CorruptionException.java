package dht.storage;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Stored bytes failed their checksum (or structural check): the engine refuses to return them.
 * Names the file and the byte offset of the damaged unit (block, record, footer).
 */
public final class CorruptionException extends IOException {
    private final Path file;
    private final long offset;

    public CorruptionException(Path file, long offset, String what) {
        super("corruption in " + file + " at offset " + offset + ": " + what);
        this.file = file;
        this.offset = offset;
    }

    public Path file() { return file; }

    public long offset() { return offset; }
}
