package dht.storage;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
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

/** {@link StorageFiles} on the JDK: uninterruptible writes and fsync, FFM mapping, atomic rename. */
public final class NioStorageFiles implements StorageFiles {
    public static final NioStorageFiles INSTANCE = new NioStorageFiles();

    /**
     * Files are written through {@link RandomAccessFile}, not a {@code FileChannel}: a channel is
     * closed for good when a thread is interrupted inside it, which would turn one interrupted
     * request thread into a log that refuses every later write.
     */
    @Override
    public WritableFile create(Path file) throws IOException {
        RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw");
        try {
            raf.setLength(0);
        } catch (IOException e) {
            raf.close();
            throw e;
        }
        return new WritableFile() {
            private byte[] copy = new byte[0];

            @Override
            public void write(ByteBuffer src) throws IOException {
                int n = src.remaining();
                if (src.hasArray()) {
                    raf.write(src.array(), src.arrayOffset() + src.position(), n);
                } else {
                    if (copy.length < n) copy = new byte[n];
                    src.duplicate().get(copy, 0, n);
                    raf.write(copy, 0, n);
                }
                src.position(src.position() + n);
            }

            @Override
            public void sync() throws IOException { raf.getFD().sync(); }

            @Override
            public long size() throws IOException { return raf.length(); }

            @Override
            public void close() throws IOException { raf.close(); }
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
