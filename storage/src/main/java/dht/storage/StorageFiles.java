package dht.storage;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * The seam between the engine and the file system: every open, write, sync, rename, delete and
 * map goes through here, so tests can inject faults (failed fsync, short writes, crash points).
 * Kept deliberately small. The default implementation is {@link NioStorageFiles}.
 */
public interface StorageFiles {

    /** An append-only file being written. */
    interface WritableFile extends Closeable {
        /** Writes all remaining bytes of {@code src} at the end of the file. */
        void write(ByteBuffer src) throws IOException;

        /** Makes everything written so far durable (fsync). */
        void sync() throws IOException;

        long size() throws IOException;
    }

    /** Creates (or truncates) a file for appending. */
    WritableFile create(Path file) throws IOException;

    InputStream openRead(Path file) throws IOException;

    /** Maps the whole file read-only in {@code arena}; the mapping lives until the arena closes. */
    MemorySegment map(Path file, Arena arena) throws IOException;

    long size(Path file) throws IOException;

    /** Atomically replaces {@code to} with {@code from}. */
    void rename(Path from, Path to) throws IOException;

    void delete(Path file) throws IOException;

    /** Makes renames and creations in the directory durable. */
    void syncDirectory(Path dir) throws IOException;

    List<Path> list(Path dir) throws IOException;

    /**
     * Takes the exclusive lock of the directory, or returns {@code null} at once if someone holds
     * it. Closing the handle releases it.
     */
    Closeable tryLock(Path lockFile) throws IOException;
}
