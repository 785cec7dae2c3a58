package dht.storage;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/** {@link StorageFiles} on java.nio: FileChannel writes, fsync via force, FFM mapping. */
public final class NioStorageFiles implements StorageFiles {
    public static final NioStorageFiles INSTANCE = new NioStorageFiles();

    @Override
    public WritableFile create(Path file) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        return new WritableFile() {
            @Override
            public void write(ByteBuffer src) throws IOException {
                while (src.hasRemaining()) ch.write(src);
            }

            @Override
            public void sync() throws IOException { ch.force(false); }

            @Override
            public long size() throws IOException { return ch.size(); }

            @Override
            public void close() throws IOException { ch.close(); }
        };
    }

    @Override
    public InputStream openRead(Path file) throws IOException { return Files.newInputStream(file); }

    @Override
    public MemorySegment map(Path file, Arena arena) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size == 0) return MemorySegment.NULL.reinterpret(0);
            return ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
        }
    }

    @Override
    public long size(Path file) throws IOException { return Files.size(file); }

    @Override
    public void rename(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("file system cannot rename atomically: " + from + " -> " + to, e);
        }
    }

    @Override
    public void delete(Path file) throws IOException { Files.deleteIfExists(file); }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }

    @Override
    public Closeable tryLock(Path lockFile) throws IOException {
        FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            ch.close();
            return null;
        }
        FileLock held = lock;
        return () -> {
            try {
                held.release();
            } finally {
                ch.close();
            }
        };
    }
}
