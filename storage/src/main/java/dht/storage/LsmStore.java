package dht.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log-structured merge store: a write-ahead log with group commit, a bounded off-heap
 * memtable, immutable sorted tables read through mapped memory, size-tiered background compaction
 * and an atomically replaced manifest. See docs/storage-format.md.
 *
 * <p>This class opens and closes the store, serves reads and hands the rest to its parts:
 * {@link Recovery} (open), {@link WriteQueue} (writes, log switches), {@link MemtableFlush} and
 * {@link Compaction} (background jobs, one thread each), {@link ResidencyWatch} (which tables
 * are in the page cache, checked on the housekeeping thread), {@link BackgroundThreads} and
 * {@link VersionSet} (the current version, file numbers, manifest installs, and the mutex they share).
 *
 * <p>Invariants:
 * <ul>
 *   <li>Reads take no lock: each retains the current version for as long as it reads.</li>
 *   <li>Versions compete by {@link Entry#supersedes} everywhere, never by file age, so any subset
 *       of tables may be merged. A point read consults tables by the greatest timestamp each holds,
 *       greatest first, and stops before a table whose greatest is older than the version in hand:
 *       such a table cannot hold the winner, whatever its age.</li>
 * </ul>
 *
 * <p>Expiry is judged when a version is read, by this node's clock ({@link Entry#readAt}): reads and
 * scans see an expired value as a tombstone with its timestamp; compaction turns it into one for good.
 *
 * <p>The memtable copies keys and values off-heap ({@link Memtable}); reads return fresh arrays. A
 * scan holds its memtables and tables until it is closed or read to the end; a scan that is
 * abandoned without either keeps them in memory (and, once compacted away, on disk) until the
 * process ends.
 */
public final class LsmStore implements Store {
    private static final Logger log = LoggerFactory.getLogger(LsmStore.class);

    private final Path dir;
    private final Closeable dirLock;

    private final VersionSet versions;
    private final ReentrantLock mutex;
    private final WriteQueue writes;

    // ---- background work ----
    private final ExecutorService flusher;
    private final ExecutorService compactor;
    private final ScheduledExecutorService syncer;
    /** Residency checks and the freeing a reader hands over (Version#release(Executor)): never the loop's, nor the log syncs'. */
    private final ExecutorService housekeeper;
    private final Compaction compaction;
    private final MemtableFlush flushes;
    private final ResidencyWatch residency;

    private LsmStore(Path dir, StoreOptions opt, Closeable dirLock) {
        this.dir = dir;
        this.dirLock = dirLock;
        this.versions = new VersionSet(dir, opt);
        this.mutex = versions.mutex;
        this.flusher = BackgroundThreads.start("dht-storage-flush", opt.backgroundPriority());
        this.compactor = BackgroundThreads.start("dht-storage-compact", opt.backgroundPriority());
        this.compaction = new Compaction(dir, opt, versions, compactor);
        java.util.concurrent.ScheduledThreadPoolExecutor sync =
                new java.util.concurrent.ScheduledThreadPoolExecutor(1, BackgroundThreads.daemon("dht-storage-sync"));
        // shutdown() drops pending retries and periodic syncs without interrupting a running one.
        sync.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        sync.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        sync.prestartCoreThread();
        this.syncer = sync;
        this.flushes = new MemtableFlush(dir, opt, versions, flusher, syncer, compaction);
        this.writes = new WriteQueue(dir, opt, versions, syncer, flushes);
        this.housekeeper = BackgroundThreads.start("dht-storage-housekeeping", opt.backgroundPriority());
        this.residency = new ResidencyWatch(versions, housekeeper);
    }

    /**
     * Whether another process holds {@code dir} right now, found without creating or changing
     * anything (for a caller that must fail before it opens the store, and wants to say why).
     * Only for a process that has no store open on {@code dir}: file locks belong to the whole
     * process, and on Linux closing any channel to the lock file drops the process's lock. While
     * it tests, it holds the lock for a moment: a store opening at that instant is refused.
     */
    public static boolean inUse(Path dir) {
        Path lock = dir.resolve(FileNames.LOCK);
        if (!Files.exists(lock)) return false; // so that the lock below creates nothing
        try {
            Closeable held = NioStorageFiles.INSTANCE.tryLock(lock);
            if (held == null) return true;
            held.close();
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Opens (creating if needed) the store in {@code dir}: locks it, removes leftovers of interrupted
     * flushes and compactions, replays the logs into tables, starts a new log and {@link TableSizeWatch}.
     * @throws DirectoryLockedException at once if another store holds the directory
     */
    public static LsmStore open(Path dir, StoreOptions options) throws IOException {
        Files.createDirectories(dir);
        StorageFiles files = options.files();
        Closeable lock = files.tryLock(dir.resolve(FileNames.LOCK));
        if (lock == null) throw new DirectoryLockedException(dir);
        LsmStore s = new LsmStore(dir, options, lock);
        try {
            new Recovery(dir, options, s.versions).run(s.writes::start);
        } catch (IOException | RuntimeException e) {
            s.abortOpen();
            throw e;
        }
        if (options.syncPolicy() == SyncPolicy.PERIODIC) {
            s.syncer.scheduleWithFixedDelay(s.writes::periodicSync, options.syncIntervalMillis(),
                    options.syncIntervalMillis(), TimeUnit.MILLISECONDS);
        }
        TableSizeWatch.start(s.syncer, s.versions);
        s.compaction.schedule();
        return s;
    }

    private void abortOpen() {
        flusher.shutdownNow();
        compactor.shutdownNow();
        syncer.shutdownNow();
        housekeeper.shutdownNow();
        Version v = versions.current();
        if (v != null) v.release();
        writes.abandonLog();
        try {
            dirLock.close();
        } catch (IOException e) {
            log.warn("releasing lock after failed open: {}", e.toString());
        }
    }

    // ------------------------------------------------------------------ writes

    @Override
    public void put(byte[] key, byte[] value, long timestamp) throws IOException {
        write(List.of(Entry.value(checkKey(key), value, timestamp)));
    }

    @Override
    public void delete(byte[] key, long timestamp) throws IOException {
        write(List.of(Entry.tombstone(checkKey(key), timestamp)));
    }

    private static byte[] checkKey(byte[] key) {
        if (key == null) throw new IllegalArgumentException("null key");
        return key;
    }

    /**
     * Writes the entries in order, as one call (a put or delete is a call of one): they join the
     * writers' queue together, so one group commit can take them all. Returns when all are
     * written. Not atomic: readers may see some before the call returns, and a call that fails may
     * have written some of them (they are then in the log, and a reopen replays them).
     */
    @Override
    public void write(List<Entry> entries) throws IOException {
        writes.write(entries);
    }

    /**
     * Writes the entries as {@link #write} does only when this thread can commit them at once:
     * under {@link SyncPolicy#PERIODIC}, with no other writer queued and room in the active
     * memtable (no slowdown, stall or log switch). See {@link WriteQueue#tryWrite}.
     */
    @Override
    public boolean tryWrite(List<Entry> entries) throws IOException {
        return writes.tryWrite(entries);
    }

    /**
     * True while every table's index and bloom filter were in the page cache when last checked (at
     * most once a second, off this thread) and no block or value is large ({@link ResidencyWatch}):
     * a {@link #get} in {@link ReadsWithoutWaiting}'s scope then reads memory only, or throws
     * {@link WouldWaitException} for a block that is not, and leaves any freeing to a background thread.
     */
    @Override
    public boolean readsWithoutWaiting() throws IOException {
        Version v = acquire();
        try {
            return residency.readsWithoutWaiting(v);
        } finally {
            v.release(housekeeper);
        }
    }

    /** Writes the active memtable to a table and waits until it is done. */
    @Override
    public void flush() throws IOException {
        mutex.lock();
        try {
            if (versions.closed()) throw new IOException("store " + dir + " is closed");
            writes.awaitIdle();
            if (!versions.current().active.isEmpty()) writes.rotate();
        } finally {
            mutex.unlock();
        }
        flushes.flushAll();
    }

    /** Merges every live table into one (a major compaction) and waits for it. */
    @Override
    public void compact() throws IOException {
        compaction.compactAll();
    }

    /**
     * A flush, then a major compaction that leaves out every version of the keys {@code drop}
     * accepts: with the memtables flushed first, every version written before the call is in
     * the compaction's inputs, so none is left behind to come back. A damaged table is no input
     * and keeps its versions.
     */
    @Override
    public long purge(java.util.function.Predicate<Entry> drop) throws IOException {
        flush();
        return compaction.compactAll(drop);
    }

    // ------------------------------------------------------------------ reads

    private Version acquire() throws IOException {
        Version v = versions.acquire();
        if (v == null) throw new IOException("store " + dir + " is closed");
        return v;
    }

    @Override
    public Entry get(byte[] key) throws IOException {
        return get(key, ReadBudget.UNLIMITED);
    }

    @Override
    public Entry get(byte[] key, ReadBudget budget) throws IOException {
        return get(key, budget, true);
    }

    /** {@code asRead}: an expired value as a tombstone (else as stored). */
    private Entry get(byte[] key, ReadBudget budget, boolean asRead) throws IOException {
        checkKey(key);
        Version v = acquire();
        Entry best = null;
        try {
            long hash = Bytes.hash(key);
            best = v.active.get(key, hash, budget, Long.MIN_VALUE);
            // A version older than the best so far loses: it is not copied (nor reserved). Ties
            // are read: an equal timestamp can win (Entry.supersedes).
            for (Memtable m : v.immutables) best = newer(best, m.get(key, hash, budget, floor(best)), budget);
            if (!v.tables.isEmpty()) {
                for (Table t : v.newestFirst) {
                    if (best != null && t.maxTimestamp < best.timestamp()) break;
                    best = newer(best, t.get(key, hash, budget, floor(best)), budget);
                }
            }
            return asRead ? readNow(best, budget) : best;
        } catch (IOException | RuntimeException | Error e) {
            release(best, budget); // the caller owns a reservation only when get returns
            throw e;
        } finally {
            v.release(housekeeper); // a read may be on an event loop (readsWithoutWaiting)
        }
    }

    /**
     * The newest version's stamp, found as {@link #get} finds the version (the same sources, the
     * same early stop) but with no key or value copied. Two values of one timestamp compete by
     * their bytes, which a stamp does not carry: they are one write and share their expiry, so
     * either stamp is the winner's; should their expiries or copies differ, the entry is read instead.
     */
    @Override
    public Stamp stamp(byte[] key) throws IOException {
        return stamp(key, true);
    }

    @Override
    public Stamp storedStamp(byte[] key) throws IOException { return stamp(key, false); }

    private Stamp stamp(byte[] key, boolean asRead) throws IOException {
        checkKey(key);
        Version v = acquire();
        Stamp best;
        boolean tied = false;
        try {
            long hash = Bytes.hash(key);
            best = v.active.stamp(key, hash);
            for (Memtable m : v.immutables) {
                Stamp s = m.stamp(key, hash);
                tied |= Stamp.tiedApart(best, s);
                best = Stamp.newer(best, s);
            }
            if (!v.tables.isEmpty()) {
                for (Table t : v.newestFirst) {
                    if (best != null && t.maxTimestamp < best.timestamp()) break;
                    Stamp s = t.stamp(key, hash);
                    tied |= Stamp.tiedApart(best, s);
                    best = Stamp.newer(best, s);
                }
            }
        } finally {
            v.release();
        }
        if (tied) return Stamp.of(get(key, ReadBudget.UNLIMITED, asRead));
        return best == null || !asRead ? best : best.readAt(System.currentTimeMillis());
    }

    /** {@link Entry#readAt} now, by this node's clock: an expired value's reservation goes back. */
    private static Entry readNow(Entry best, ReadBudget budget) {
        if (best == null) return null;
        Entry read = best.readAt(System.currentTimeMillis());
        if (read != best) release(best, budget);
        return read;
    }

    private static long floor(Entry best) {
        return best == null ? Long.MIN_VALUE : best.timestamp();
    }

    /** The newer of two versions of a key; the other one's reservation goes back. */
    private static Entry newer(Entry a, Entry b, ReadBudget budget) {
        if (b == null) return a;
        if (b.supersedes(a)) {
            release(a, budget);
            return b;
        }
        release(b, budget);
        return a;
    }

    private static void release(Entry e, ReadBudget budget) {
        if (e != null && !e.isTombstone()) budget.release(e.valueLength());
    }

    /** Values copied one at a time from the borrowing scan, so that they outlive it. */
    @Override
    public CloseableIterator<Entry> scan(byte[] from, byte[] to) throws IOException {
        CloseableIterator<Entry> borrowed = scan(from, to, ReadBudget.UNLIMITED);
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                boolean h = borrowed.hasNext();
                if (!h) close(); // read to the end: the tables go back without waiting for a close
                return h;
            }

            @Override
            public Entry next() {
                return borrowed.next().owned();
            }

            @Override
            public void close() {
                borrowed.close();
            }
        };
    }

    /**
     * Values borrowed, valid until the iterator is closed (reaching the end does not close it).
     * Every source borrows its values (the memtables' arenas, the tables' mappings, a compressed
     * block's decompressed array, reserved in {@code budget}), and the merge copies none, so a scan
     * takes about one block per table of the heap whatever the size of the values; they stay valid
     * because the scan holds its version (and so every arena and mapping) until it is closed.
     */
    @Override
    public CloseableIterator<Entry> scan(byte[] from, byte[] to, ReadBudget budget) throws IOException {
        return scan(from, to, budget, true);
    }

    @Override
    public CloseableIterator<Entry> storedScan(byte[] from, byte[] to) throws IOException {
        return scan(from, to, ReadBudget.UNLIMITED, false);
    }

    /** The borrowing scan; {@code asRead}: expired values as tombstones (else as stored). */
    private CloseableIterator<Entry> scan(byte[] from, byte[] to, ReadBudget budget, boolean asRead) throws IOException {
        Version v = acquire();
        MergingIterator merged;
        try {
            List<Iterator<Entry>> sources = new ArrayList<>();
            sources.add(v.active.borrowingIterator(from, to));
            for (Memtable m : v.immutables) sources.add(m.borrowingIterator(from, to));
            for (Table t : v.tables) sources.add(t.scanIterator(from, to, budget));
            merged = new MergingIterator(sources); // reads the first entry of each source: may meet a damaged block
        } catch (RuntimeException | Error e) {
            v.release(); // else the version, its memtables' native memory and its tables stay for good
            throw e;
        }
        return new CloseableIterator<>() {
            private boolean released;

            @Override
            public boolean hasNext() {
                return !released && merged.hasNext();
            }

            @Override
            public Entry next() {
                if (released) throw new NoSuchElementException();
                Entry e = merged.next();
                return asRead ? e.readAt(System.currentTimeMillis()) : e;
            }

            @Override
            public void close() {
                if (!released) {
                    released = true;
                    merged.close();
                    v.release();
                }
            }
        };
    }

    @Override
    public EngineCounters counters() {
        return versions.counters;
    }

    @Override
    public StoreStats stats() {
        Version v = versions.acquire();
        try {
            return StoreStats.of(v, writes.walBytes(), compaction.pending());
        } finally {
            if (v != null) v.release();
        }
    }

    public Path directory() { return dir; }

    // ------------------------------------------------------------------ close

    @Override
    public void close() throws IOException {
        IOException failure = null;
        mutex.lock();
        try {
            if (versions.closed() || versions.stopping) return;
            versions.stopping = true;
            writes.awaitIdle();
            if (!versions.current().active.isEmpty() && writes.failure() == null) {
                try {
                    writes.rotate();
                } catch (IOException e) {
                    // Reported below, after the rest of the close, so that the store still stops and
                    // lets go of its directory. The memtable's writes are in the log, synced below,
                    // and replayed at the next open.
                    failure = e;
                }
            }
        } finally {
            mutex.unlock();
        }
        try {
            if (writes.failure() == null && failure == null) flushes.flushAll();
        } catch (IOException e) {
            failure = e;
        }
        // No background task may touch the directory once the lock is released.
        syncer.shutdown(); // drops periodic syncs and pending flush retries; the log is synced below
        compactor.shutdown();
        flusher.shutdown();
        housekeeper.shutdown(); // runs the freeing queued so far; a later release frees on its caller's thread
        try {
            // Each waited for on its own: one that overruns must not let the others go unwaited for.
            boolean stopped = compactor.awaitTermination(1, TimeUnit.MINUTES);
            stopped &= flusher.awaitTermination(1, TimeUnit.MINUTES);
            stopped &= syncer.awaitTermination(1, TimeUnit.MINUTES);
            stopped &= housekeeper.awaitTermination(1, TimeUnit.MINUTES);
            if (!stopped) log.warn("background work of store {} did not stop within a minute", dir);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        mutex.lock();
        try {
            versions.markClosed();
            writes.closeLog();
            versions.releaseCurrent();
        } finally {
            mutex.unlock();
            dirLock.close();
        }
        log.info("closed store {}", dir);
        if (failure != null) throw failure;
    }
}
