package dht.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log-structured merge store: a write-ahead log with group commit, a bounded off-heap
 * memtable, immutable sorted tables read through mapped memory, size-tiered background compaction
 * and an atomically replaced manifest. See docs/storage-format.md.
 *
 * <p>Invariants:
 * <ul>
 *   <li>A write is acknowledged only after its log record is written (and fsynced under
 *       {@link SyncPolicy#EVERY_WRITE}) and applied to the active memtable.</li>
 *   <li>Every record of log {@code N} is in the memtable whose {@code logNumber} is {@code N}; log
 *       {@code N} is deleted only after a manifest naming the table that holds its memtable is
 *       durable.</li>
 *   <li>The live table set changes only under {@link #manifestLock}, and only after the new
 *       manifest is durable; the readers' view ({@link #current}) changes only under {@link #mutex}.</li>
 *   <li>Versions compete by {@link Entry#supersedes} everywhere, never by file age, so any subset
 *       of tables may be merged. A point read consults tables by the greatest timestamp each holds,
 *       greatest first, and stops before a table whose greatest is older than the version in hand:
 *       such a table cannot hold the winner, whatever its age.</li>
 * </ul>
 *
 * <p>The memtable copies keys and values off-heap ({@link Memtable}); reads return fresh arrays. A
 * scan holds its memtables and tables until it is closed or read to the end; a scan that is
 * abandoned without either keeps them in memory (and, once compacted away, on disk) until the
 * process ends.
 */
public final class LsmStore implements Store {
    private static final Logger log = LoggerFactory.getLogger(LsmStore.class);
    private static final long MAX_BATCH_BYTES = 4L << 20;

    private final Path dir;
    private final StoreOptions opt;
    private final StorageFiles files;
    private final Closeable dirLock;

    private final VersionSet versions;
    // ---- write path, guarded by mutex ----
    private final ReentrantLock mutex;
    private final Condition changed;
    /**
     * Writers waiting their turn, the head leading. Each {@link #write(List)} call waits on its own
     * condition, shared by its writers, and is woken only when one of them is done or has become
     * the head: one shared condition with signalAll woke every queued writer at every
     * group commit, only for all but one to sleep again.
     */
    private final ArrayDeque<Writer> writers = new ArrayDeque<>();
    private volatile WalWriter wal;
    private volatile IOException writeError;
    /** Stalled writes are logged once per 5 s; mutex held. */
    private final LogThrottle stallLog = new LogThrottle(5_000_000_000L);
    /**
     * The size at which the active memtable is rotated, drawn anew for each memtable (guarded by
     * {@code mutex}): see {@link #flushThreshold}.
     */
    private long activeLimit;

    // ---- background work ----
    private final ExecutorService flusher;
    private final ExecutorService compactor;
    private final ScheduledExecutorService syncer;
    private final Compaction compaction;
    private final MemtableFlush flushes;

    private static final class Writer {
        final Entry entry;
        /** The log record up to the value (the value is copied into the log from where it is). */
        final byte[] head;
        final long recordBytes;
        final Condition turn;
        boolean done;
        IOException error;

        Writer(Entry entry, Condition turn) {
            this.entry = entry;
            this.head = LogRecord.head(entry);
            this.recordBytes = LogRecord.size(entry);
            this.turn = turn;
        }
    }

    private LsmStore(Path dir, StoreOptions opt, Closeable dirLock) {
        this.dir = dir;
        this.opt = opt;
        this.files = opt.files();
        this.dirLock = dirLock;
        this.versions = new VersionSet(dir, opt);
        this.mutex = versions.mutex;
        this.changed = versions.changed;
        this.flusher = background("dht-storage-flush", opt.backgroundPriority());
        this.compactor = background("dht-storage-compact", opt.backgroundPriority());
        this.compaction = new Compaction(dir, opt, versions, compactor);
        java.util.concurrent.ScheduledThreadPoolExecutor sync =
                new java.util.concurrent.ScheduledThreadPoolExecutor(1, daemon("dht-storage-sync"));
        // shutdown() drops pending retries and periodic syncs without interrupting a running one.
        sync.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        sync.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        sync.prestartCoreThread();
        this.syncer = sync;
        this.flushes = new MemtableFlush(dir, opt, versions, flusher, syncer, compaction);
    }

    /**
     * One background thread, started now, by the thread opening the store: a thread inherits its
     * creator's scheduling (its CPU mask on Linux), and a flush thread started lazily by whichever
     * writer first filled a memtable took on that writer's, which on a node that pins its storage
     * threads to CPUs kept every flush and compaction on one CPU. The thread sets its own CPU priority
     * ({@link StoreOptions#backgroundPriority}) as it starts: on Linux that is a per-thread attribute.
     */
    private static ExecutorService background(String name, BackgroundPriority priority) {
        java.util.concurrent.ThreadFactory daemon = daemon(name);
        java.util.concurrent.ThreadPoolExecutor e = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0L,
                TimeUnit.MILLISECONDS, new java.util.concurrent.LinkedBlockingQueue<>(), r -> daemon.newThread(() -> {
                    if (!priority.applyToCurrentThread() && priorityRefusalLogged.compareAndSet(false, true)) {
                        log.info("background threads keep their CPU priority: the system refused {}", priority);
                    }
                    r.run();
                }));
        e.prestartCoreThread();
        return e;
    }

    /** A refused priority is said once per process, not once per store and thread. */
    private static final java.util.concurrent.atomic.AtomicBoolean priorityRefusalLogged =
            new java.util.concurrent.atomic.AtomicBoolean();

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
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
     * Opens (creating if needed) the store in {@code dir}: locks the directory, removes leftovers
     * of interrupted flushes and compactions, replays the logs into tables and starts a new log.
     *
     * @throws DirectoryLockedException at once if another store holds the directory
     */
    public static LsmStore open(Path dir, StoreOptions options) throws IOException {
        Files.createDirectories(dir);
        StorageFiles files = options.files();
        Closeable lock = files.tryLock(dir.resolve(FileNames.LOCK));
        if (lock == null) throw new DirectoryLockedException(dir);
        LsmStore s = new LsmStore(dir, options, lock);
        try {
            new Recovery(dir, options, s.versions).run(w -> s.wal = w);
            s.activeLimit = s.flushThreshold();
        } catch (IOException | RuntimeException e) {
            s.abortOpen();
            throw e;
        }
        if (options.syncPolicy() == SyncPolicy.PERIODIC) {
            s.syncer.scheduleWithFixedDelay(s::periodicSync, options.syncIntervalMillis(),
                    options.syncIntervalMillis(), TimeUnit.MILLISECONDS);
        }
        s.compaction.schedule();
        return s;
    }

    private void abortOpen() {
        flusher.shutdownNow();
        compactor.shutdownNow();
        syncer.shutdownNow();
        Version v = versions.current();
        if (v != null) v.release();
        try {
            if (wal != null) wal.close();
        } catch (IOException e) {
            log.warn("closing log after failed open: {}", e.toString());
        }
        try {
            dirLock.close();
        } catch (IOException e) {
            log.warn("releasing lock after failed open: {}", e.toString());
        }
    }

    /**
     * Where the next memtable is rotated: {@link StoreOptions#memtableBytes}, or with a
     * {@link StoreOptions#flushJitter} a size drawn at random below it, anew for each memtable, so
     * that stores receiving the same writes (a cluster's replicas) drift apart after their first
     * flush instead of flushing and compacting together every time. Never above the configured
     * size, so memory stays bounded by it.
     */
    private long flushThreshold() {
        long max = opt.memtableBytes();
        long span = (long) (max * opt.flushJitter());
        return span == 0 ? max : max - java.util.concurrent.ThreadLocalRandom.current().nextLong(span + 1);
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
     * writers' queue together, so the group commit that takes the first of them takes the rest too
     * (one log append for all, up to the group's byte limit), where separate calls from one thread
     * would commit one at a time.
     * Returns when all are written. Not atomic: readers may see some before the call returns, and
     * a call that fails may have written some of them (they are then in the log, and a reopen
     * replays them).
     */
    @Override
    public void write(List<Entry> entries) throws IOException {
        if (entries.isEmpty()) return;
        // One condition for all of them: whichever of them is signalled, this thread wakes.
        Condition turn = mutex.newCondition();
        List<Writer> mine = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            checkKey(e.key());
            Writer w = new Writer(e, turn);
            if (w.recordBytes > LogRecord.MAX_BODY) throw new IllegalArgumentException("entry too large");
            mine.add(w);
        }
        Writer last = mine.getLast();
        mutex.lock();
        try {
            if (versions.closed() || versions.stopping) throw new IOException("store " + dir + " is closed");
            writers.addAll(mine);
            while (!last.done) {
                Writer head = writers.peekFirst();
                if (head != null && head.turn == turn) {
                    try {
                        lead(head);
                    } catch (IOException | RuntimeException | Error ex) {
                        // lead() took the head out; the rest of this call's entries leave too.
                        writers.removeIf(x -> x.turn == turn);
                        handOver();
                        throw ex;
                    }
                } else {
                    turn.awaitUninterruptibly();
                }
            }
            for (Writer w : mine) {
                if (w.error != null) throw new IOException("write failed: " + w.error.getMessage(), w.error);
            }
        } finally {
            mutex.unlock();
        }
    }

    /**
     * With the mutex held, by the writer at the head of the queue: commits it and everyone queued
     * behind it, up to the group's byte limit (group commit), marks them done, and wakes the next
     * leader. Throws if its own write failed.
     */
    private void lead(Writer w) throws IOException {
        try {
            makeRoomForWrite();
        } catch (IOException | RuntimeException | Error ex) {
            // Left queued, this writer would hold every later one (and close) forever.
            writers.pollFirst();
            handOver();
            throw ex;
        }
        List<Writer> batch = new ArrayList<>();
        List<byte[]> heads = new ArrayList<>();
        List<Entry> entries = new ArrayList<>();
        long bytes = 0;
        for (Writer x : writers) {
            if (!batch.isEmpty() && bytes + x.recordBytes > MAX_BATCH_BYTES) break;
            batch.add(x);
            heads.add(x.head);
            entries.add(x.entry);
            bytes += x.recordBytes;
        }
        Memtable mem = versions.current().active;
        WalWriter log = wal;
        IOException err = null;
        mutex.unlock();
        try {
            log.append(heads, entries);
            if (opt.syncPolicy() == SyncPolicy.EVERY_WRITE) log.sync();
            for (Writer x : batch) mem.put(x.entry);
        } catch (IOException ex) {
            err = ex;
        } catch (RuntimeException | Error ex) {
            // The memtable could not take the batch (native memory exhausted, say): it is in the
            // log but not all readable, so this store stops taking writes as for a log failure;
            // reopening replays the log. Left unhandled, it would leave the batch queued forever.
            err = new IOException("memtable insert failed: " + ex, ex);
        } finally {
            mutex.lock();
        }
        if (err != null) {
            // The log may now end in a torn record: later records would be unreadable after it.
            writeError = err;
            LsmStore.log.error("write-ahead log {} failed, store {} refuses further writes: {}", log.path, dir,
                    err.toString());
        }
        for (Writer x : batch) {
            writers.pollFirst();
            x.done = true;
            x.error = err;
            if (x != w) x.turn.signal();
        }
        handOver();
        if (err != null) throw new IOException("write failed: " + err.getMessage(), err);
    }

    /** With the mutex held, by a leader leaving the queue: wakes the next leader, or whoever waits for an empty queue. */
    private void handOver() {
        Writer next = writers.peekFirst();
        if (next != null) {
            next.turn.signal();
        } else {
            changed.signalAll();
        }
    }

    /** Failed log switches are logged once per 5 s; mutex held. */
    private final LogThrottle rotateFailureLog = new LogThrottle(5_000_000_000L);

    /**
     * Called by the leader with the mutex held: rotates the memtable when full, stalls when
     * flushing lags. An interrupt does not fail the write (nor make the waits spin): the flag is
     * cleared while waiting and restored on return.
     */
    private void makeRoomForWrite() throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            boolean slowed = false;
            while (true) {
                if (writeError != null) throw new IOException("store " + dir + " refuses writes after a log failure", writeError);
                if (versions.closed() || versions.stopping) throw new IOException("store " + dir + " is closed");
                Version v = versions.current();
                if (!slowed && v.tables.size() >= opt.slowdownTables()) {
                    slowed = true; // compaction is behind: delay this batch a little, without failing it
                    interrupted |= awaitChange(1);
                } else if (v.active.bytes() < activeLimit) {
                    return;
                } else if (v.immutables.size() >= opt.maxImmutableMemtables()) {
                    if (stallLog.allow()) log.warn("writes stalled: {} memtables waiting for flush", v.immutables.size());
                    interrupted |= awaitChange(100);
                } else {
                    rotate();
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /** Waits for a change (a flush) or the timeout; returns whether the wait was interrupted. */
    private boolean awaitChange(long millis) {
        try {
            changed.await(millis, TimeUnit.MILLISECONDS);
            return false;
        } catch (InterruptedException e) {
            return true;
        }
    }

    /** With the mutex held: starts a new log and memtable, queues the old memtable for flush. */
    private void rotate() throws IOException {
        long n = versions.newFileNumber(); // used up even if the create fails: a half-made file may be left under it
        Path p = FileNames.log(dir, n);
        WalWriter next;
        try {
            next = new WalWriter(n, p, files.create(p));
        } catch (IOException e) {
            throw rotateFailed(p, e);
        }
        WalWriter old = wal;
        wal = next;
        // A rotation's fsyncs (the new log's directory entry, the old log's unsynced tail) stall every
        // writer while they run under the mutex. Under PERIODIC nothing is promised durable before
        // the next periodic sync, so the syncer thread does them; under EVERY_WRITE the next
        // acknowledged write needs the new log's directory entry durable first, so they stay here.
        if (opt.syncPolicy() != SyncPolicy.PERIODIC || !offload(() -> retire(old, true))) {
            try {
                files.syncDirectory(dir);
            } catch (IOException e) {
                // The new log's entry may not be durable, so nothing may be acknowledged from it:
                // writes stay on the old log, and the new one is given up (closed and deleted),
                // not left open for every later try to add another.
                wal = old;
                try {
                    next.close();
                } catch (IOException ex) {
                    log.warn("closing the new log {} given up: {}", p, ex.toString());
                }
                try {
                    files.delete(p);
                } catch (IOException ex) {
                    log.warn("deleting the new log {} given up: {} (the next open replays it empty and deletes it)", p, ex.toString());
                }
                throw rotateFailed(p, e);
            }
            retire(old, false);
        }
        Version v = versions.current();
        v.active.walBytes = old.bytes();
        List<Memtable> imm = new ArrayList<>(v.immutables);
        imm.add(v.active);
        versions.install(new Version(versions.newMemtable(n), imm, v.tables));
        activeLimit = flushThreshold();
        flushes.schedule();
    }

    /**
     * Every write fails until a new log can be started (the memtable is full): says so in the log,
     * once in a while, or an operator sees only the clients' errors. Mutex held.
     */
    private IOException rotateFailed(Path p, IOException e) {
        if (rotateFailureLog.allow()) {
            log.error("cannot start a new write-ahead log {}: {}; writes fail until one can be created", p, e.toString());
        }
        return new IOException("cannot start a new write-ahead log " + p + ": " + e.getMessage(), e);
    }

    /**
     * Syncs and closes a log that rotation replaced (and the directory that now names its
     * successor). A failed sync still closes it: its memtable is queued for flush, which makes the
     * data durable anyway, and a log left open was a file handle lost at every log switch.
     */
    private void retire(WalWriter old, boolean syncDirectory) {
        if (syncDirectory) {
            try {
                files.syncDirectory(dir);
            } catch (IOException e) {
                log.warn("syncing {} after a log switch: {} (the flush just queued syncs it again)", dir, e.toString());
            }
        }
        try {
            old.sync();
        } catch (IOException e) {
            log.warn("syncing the replaced log {}: {} (its memtable's flush makes it durable)", old.path, e.toString());
        }
        try {
            old.close();
        } catch (IOException e) {
            log.warn("closing the replaced log {}: {}", old.path, e.toString());
        }
    }

    /** Runs {@code task} on the syncer thread; false if the store is stopping and it cannot. */
    private boolean offload(Runnable task) {
        try {
            syncer.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private void periodicSync() {
        WalWriter w = wal;
        try {
            w.sync();
        } catch (ClosedChannelException e) {
            // rotated meanwhile: rotation synced it before closing
        } catch (IOException e) {
            log.error("periodic sync of {} failed: {}", w.path, e.toString());
        }
    }

    /** Writes the active memtable to a table and waits until it is done. */
    public void flush() throws IOException {
        mutex.lock();
        try {
            if (versions.closed()) throw new IOException("store " + dir + " is closed");
            while (!writers.isEmpty()) changed.awaitUninterruptibly();
            if (!versions.current().active.isEmpty()) rotate();
        } finally {
            mutex.unlock();
        }
        flushes.flushAll();
    }

    /** Merges every live table into one (a major compaction) and waits for it. */
    public void compact() throws IOException {
        compaction.compactAll();
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
            return best;
        } catch (IOException | RuntimeException | Error e) {
            release(best, budget); // the caller owns a reservation only when get returns
            throw e;
        } finally {
            v.release();
        }
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

    @Override
    public CloseableIterator<Entry> scan(byte[] from, byte[] to) throws IOException {
        Version v = acquire();
        MergingIterator merged;
        try {
            List<Iterator<Entry>> sources = new ArrayList<>();
            sources.add(v.active.iterator(from, to));
            for (Memtable m : v.immutables) sources.add(m.iterator(from, to));
            for (Table t : v.tables) sources.add(t.iterator(from, to));
            merged = new MergingIterator(sources); // reads the first entry of each source: may meet a damaged block
        } catch (RuntimeException | Error e) {
            v.release(); // else the version, its memtables' native memory and its tables stay for good
            throw e;
        }
        return new CloseableIterator<>() {
            private boolean released;

            @Override
            public boolean hasNext() {
                if (released) return false;
                boolean h = merged.hasNext();
                if (!h) close();
                return h;
            }

            @Override
            public Entry next() {
                if (released) throw new NoSuchElementException();
                return merged.next();
            }

            @Override
            public void close() {
                if (!released) {
                    released = true;
                    v.release();
                }
            }
        };
    }

    @Override
    public StoreStats stats() {
        Version v = versions.acquire();
        if (v == null) return new StoreStats(0, 0, 0, 0, 0, 0, 0);
        try {
            long tableBytes = 0;
            int damaged = 0;
            for (Table t : v.tables) {
                tableBytes += t.sizeBytes;
                if (t.damaged) damaged++;
            }
            long mem = v.active.bytes();
            long walBytes = wal.bytes();
            for (Memtable m : v.immutables) {
                mem += m.bytes();
                walBytes += m.walBytes;
            }
            return new StoreStats(v.tables.size(), tableBytes, mem, v.immutables.size(),
                    compaction.due(), walBytes, damaged);
        } finally {
            v.release();
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
            while (!writers.isEmpty()) changed.awaitUninterruptibly();
            if (!versions.current().active.isEmpty() && writeError == null) {
                try {
                    rotate();
                } catch (IOException e) {
                    // Reported below, after the rest of the close: thrown from here it left the
                    // store half-stopped with its directory lock held, and a second close did nothing.
                    // The memtable's writes are in the log, synced below, and replayed at the next open.
                    failure = e;
                }
            }
        } finally {
            mutex.unlock();
        }
        try {
            if (writeError == null && failure == null) flushes.flushAll();
        } catch (IOException e) {
            failure = e;
        }
        // No background task may touch the directory once the lock is released.
        syncer.shutdown(); // drops periodic syncs and pending flush retries; the log is synced below
        compactor.shutdown();
        flusher.shutdown();
        try {
            // Each waited for on its own: one that overruns must not let the others go unwaited for.
            boolean stopped = compactor.awaitTermination(1, TimeUnit.MINUTES);
            stopped &= flusher.awaitTermination(1, TimeUnit.MINUTES);
            stopped &= syncer.awaitTermination(1, TimeUnit.MINUTES);
            if (!stopped) log.warn("background work of store {} did not stop within a minute", dir);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        mutex.lock();
        try {
            versions.markClosed();
            wal.sync();
            wal.close();
            versions.releaseCurrent();
        } finally {
            mutex.unlock();
            dirLock.close();
        }
        log.info("closed store {}", dir);
        if (failure != null) throw failure;
    }
}
