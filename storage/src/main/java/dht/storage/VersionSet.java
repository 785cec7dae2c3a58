package dht.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The store's shared state: the current {@link Version} readers consult, the file numbers, the
 * store's lifecycle, and the manifest that makes each new table set durable before it is read.
 *
 * <p>Locks and invariants:
 * <ul>
 *   <li>{@link #mutex} guards the next file number and every change of the current version;
 *       readers take the current version without it ({@link #acquire}). {@link #changed} is
 *       signalled at every install, and by the write queue when it empties.</li>
 *   <li>The manifest lock serializes manifest writes with the installs they describe, so the table
 *       set changes only after the manifest naming it is durable. It is taken before the mutex,
 *       never while holding it; the mutex is not held across a manifest write.</li>
 *   <li>Log {@code N} is deleted only after a manifest naming the table that holds its memtable is
 *       durable; a compaction's inputs are marked obsolete (deleted once unreferenced) only after
 *       the manifest that drops them is.</li>
 * </ul>
 * Called by the store, its write queue, its flush and compaction jobs, and at open by recovery.
 */
final class VersionSet {
    final ReentrantLock mutex = new ReentrantLock();
    /** Signalled when the version changes (a flush) and when the writer queue empties. */
    final Condition changed = mutex.newCondition();
    private final Object manifestLock = new Object();
    private final Path dir;
    private final StorageFiles files;
    private final StoreOptions opt;
    private volatile Version current;
    /** Guarded by {@link #mutex}, but for recovery, which runs before anything else. */
    private long nextFile;
    /** close() has begun: no background job starts, no write is taken. Set under the mutex. */
    volatile boolean stopping;
    /** The engine's running totals (flushes, compactions, stalls), for {@link LsmStore#counters()}. */
    final EngineCounters counters = new EngineCounters();
    /** close() has released the current version: {@link #acquire} returns null. */
    private volatile boolean closed;

    /** Writing the manifest failed, perhaps after it was renamed into place: it may name the new table. */
    static final class ManifestUncertainException extends IOException {
        ManifestUncertainException(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }

    VersionSet(Path dir, StoreOptions opt) {
        this.dir = dir;
        this.opt = opt;
        this.files = opt.files();
    }

    /** The current version, not retained (null before recovery has made one). */
    Version current() { return current; }

    /** A reference to the current version, or null once closed. */
    Version acquire() {
        while (!closed) {
            Version v = current;
            if (v.tryRetain()) return v;
        }
        return null;
    }

    boolean closed() { return closed; }

    /** Takes a file number for a new log or table; never reused, even if its file is not made. */
    long newFileNumber() {
        mutex.lock();
        try {
            return nextFile++;
        } finally {
            mutex.unlock();
        }
    }

    /** By recovery: file numbers start at {@code n}. */
    void startFileNumbersAt(long n) { nextFile = n; }

    Memtable newMemtable(long logNumber) {
        return new Memtable(logNumber, MemtableArena.chunkFor(opt.memtableBytes()), opt.memtableBytes());
    }

    /** By recovery: the manifest naming {@code tables}, with logs from {@code logNumber} on still needed. */
    void writeRecoveredManifest(long logNumber, List<Table> tables) throws IOException {
        new Manifest(nextFile, logNumber, numbers(tables)).write(files, dir);
    }

    /** By recovery, once it is done: the first current version. */
    void start(Version v) { current = v; }

    /** With the mutex held: makes {@code v} current and lets go of the previous one. */
    void install(Version v) {
        Version old = current;
        current = v;
        old.release();
        changed.signalAll();
    }

    /**
     * Installs the flush of the oldest immutable memtable {@code m} into table {@code t} (null when
     * {@code m} was empty), then deletes {@code m}'s log. Throws {@link ManifestUncertainException}
     * when the manifest write failed: the manifest may name {@code t} already.
     */
    void installFlush(Memtable m, Table t) throws IOException {
        synchronized (manifestLock) {
            List<Table> tables;
            long logNumber;
            long next;
            mutex.lock();
            try {
                tables = new ArrayList<>(current.tables);
                if (t != null) tables.add(t);
                List<Memtable> rest = current.immutables.subList(1, current.immutables.size());
                logNumber = rest.isEmpty() ? current.active.logNumber : rest.getFirst().logNumber;
                next = nextFile;
            } finally {
                mutex.unlock();
            }
            writeManifest(next, logNumber, tables);
            mutex.lock();
            try {
                Version v = current;
                List<Memtable> imm = new ArrayList<>(v.immutables);
                imm.remove(m);
                List<Table> ts = new ArrayList<>(v.tables);
                if (t != null) ts.add(t);
                install(new Version(v.active, imm, ts));
            } finally {
                mutex.unlock();
            }
        }
        files.delete(FileNames.log(dir, m.logNumber));
    }

    /**
     * Installs a compaction of {@code inputs} into {@code t} (null when nothing survived) and marks
     * the inputs obsolete. Throws {@link ManifestUncertainException} when the manifest write failed:
     * the manifest may name {@code t} already.
     */
    void installCompaction(List<Table> inputs, Table t) throws IOException {
        synchronized (manifestLock) {
            List<Table> tables = new ArrayList<>(current.tables);
            tables.removeAll(inputs);
            if (t != null) tables.add(t);
            long next;
            long logNumber;
            mutex.lock();
            try {
                next = nextFile;
                logNumber = current.immutables.isEmpty() ? current.active.logNumber
                        : current.immutables.getFirst().logNumber;
            } finally {
                mutex.unlock();
            }
            writeManifest(next, logNumber, tables);
            mutex.lock();
            try {
                Version cv = current;
                List<Table> ts = new ArrayList<>(cv.tables);
                ts.removeAll(inputs);
                if (t != null) ts.add(t);
                for (Table in : inputs) in.markObsolete();
                install(new Version(cv.active, cv.immutables, ts));
            } finally {
                mutex.unlock();
            }
        }
    }

    /** With the mutex held, by close(): from now on {@link #acquire} returns null. */
    void markClosed() { closed = true; }

    /** With the mutex held, by close() after {@link #markClosed}: lets go of the current version. */
    void releaseCurrent() {
        current.release();
        changed.signalAll();
    }

    private static List<Long> numbers(List<Table> tables) {
        List<Long> out = new ArrayList<>(tables.size());
        for (Table t : tables) out.add(t.number);
        return out;
    }

    /** Writes a manifest naming {@code tables}; a failure may have left it written, so it is uncertain. */
    private void writeManifest(long next, long logNumber, List<Table> tables) throws ManifestUncertainException {
        try {
            new Manifest(next, logNumber, numbers(tables)).write(files, dir);
        } catch (IOException e) {
            throw new ManifestUncertainException(e);
        }
    }
}
