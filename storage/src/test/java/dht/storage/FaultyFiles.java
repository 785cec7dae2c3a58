package dht.storage;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/** A {@link StorageFiles} that injects faults chosen by the test into the real file system. */
final class FaultyFiles implements StorageFiles {
    private final StorageFiles real = NioStorageFiles.INSTANCE;
    volatile Predicate<Path> failSync = p -> false;
    /** Writes to matching files put half of the buffer on disk and then fail. */
    volatile Predicate<Path> shortWrite = p -> false;
    /** Writes to matching files put nothing on disk and fail. */
    volatile Predicate<Path> failWrite = p -> false;
    volatile Predicate<Path> failCreate = p -> false;
    /** Creating a matching file throws an OutOfMemoryError, as an allocation does on a full heap. */
    volatile Predicate<Path> errorOnCreate = p -> false;
    volatile Predicate<Path> failRename = p -> false;
    /** fsyncs of matching files take this long (a slow disk). */
    volatile Predicate<Path> slowSync = p -> false;
    volatile long slowSyncMillis = 200;
    /** Writes to matching files run this first (a test holds a writer there: a slow disk). */
    volatile java.util.function.Consumer<Path> beforeWrite = p -> {};
    /** Runs before a file is mapped: a test deletes it there, as a compaction does under a reader. */
    volatile java.util.function.Consumer<Path> beforeMap = p -> {};
    /** Files created and not yet closed. */
    final Set<Path> open = ConcurrentHashMap.newKeySet();

    @Override
    public WritableFile create(Path file) throws IOException {
        if (failCreate.test(file)) throw new IOException("injected: create " + file);
        if (errorOnCreate.test(file)) throw new OutOfMemoryError("injected: create " + file);
        WritableFile f = real.create(file);
        open.add(file);
        return new WritableFile() {
            @Override
            public void write(ByteBuffer src) throws IOException {
                beforeWrite.accept(file);
                if (failWrite.test(file)) throw new IOException("injected: write to " + file);
                if (shortWrite.test(file)) {
                    ByteBuffer half = src.slice(src.position(), Math.max(1, src.remaining() / 2));
                    f.write(half);
                    throw new IOException("injected: short write to " + file);
                }
                f.write(src);
            }

            @Override
            public void sync() throws IOException {
                if (failSync.test(file)) throw new IOException("injected: fsync " + file);
                if (slowSync.test(file)) {
                    try {
                        Thread.sleep(slowSyncMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                f.sync();
            }

            @Override
            public long size() throws IOException { return f.size(); }

            @Override
            public void close() throws IOException {
                open.remove(file);
                f.close();
            }
        };
    }

    @Override
    public InputStream openRead(Path file) throws IOException { return real.openRead(file); }

    @Override
    public MemorySegment map(Path file, Arena arena) throws IOException {
        beforeMap.accept(file);
        return real.map(file, arena);
    }

    @Override
    public long size(Path file) throws IOException { return real.size(file); }

    @Override
    public void rename(Path from, Path to) throws IOException {
        if (failRename.test(to)) throw new IOException("injected: rename to " + to);
        real.rename(from, to);
    }

    @Override
    public void delete(Path file) throws IOException { real.delete(file); }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        if (failSync.test(dir)) throw new IOException("injected: fsync of directory " + dir);
        real.syncDirectory(dir);
    }

    @Override
    public List<Path> list(Path dir) throws IOException { return real.list(dir); }

    @Override
    public Closeable tryLock(Path lockFile) throws IOException { return real.tryLock(lockFile); }
}
