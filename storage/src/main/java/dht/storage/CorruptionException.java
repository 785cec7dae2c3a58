package dht.storage;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Stored bytes failed their checksum (or structural check), or a file can no longer be read: the
 * engine refuses to return them. Names the file and the byte offset of the damaged unit (block,
 * record, footer), or -1 when the damage is the whole file's (a table truncated under its mapping).
 */
public final class CorruptionException extends IOException {
    private final Path file;
    private final long offset;

    public CorruptionException(Path file, long offset, String what) {
        super("corruption in " + file + " at offset " + offset + ": " + what);
        this.file = file;
        this.offset = offset;
    }

    /** Damage of the whole file rather than of one unit in it: its offset is -1. */
    public CorruptionException(Path file, String what) {
        super("corruption in " + file + ": " + what);
        this.file = file;
        this.offset = -1;
    }

    public Path file() { return file; }

    public long offset() { return offset; }
}
