package dht.storage;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path: group commit through a queue of writers, the write-ahead log, the switch to a
 * new log and memtable when the active one is full, write slowdowns and stalls while flushing or
 * compaction lag, and the error state after a log failure.
 *
 * <p>Invariants:
 * <ul>
 *   <li>Everything here is guarded by {@link VersionSet#mutex} but the log's I/O: the leader (the
 *       writer at the head of the queue) appends its group to the log and the memtable with the
 *       mutex released, and no other writer touches the log or the active memtable meanwhile.</li>
 *   <li>A write is acknowledged only after its log record is written (and fsynced under
 *       {@link SyncPolicy#EVERY_WRITE}) and applied to the active memtable.</li>
 *   <li>Every record of log {@code N} is in the memtable whose {@code logNumber} is {@code N}.</li>
 *   <li>Once a log append or memtable insert fails ({@link #failure}), writes fail: the log may end
 *       in a torn record. After a log failure, a write at least {@link #RECOVER_AFTER_NANOS} later
 *       starts a new log ({@link #recover}); until one is made, and for good after a memtable
 *       failure, every write fails, and reopening replays the log.</li>
 * </ul>
 * Called by the store's write, flush and close; {@link #periodicSync} by the syncer thread.
 * Logs under {@link LsmStore}'s name.
 */
final class WriteQueue {
    private static final Logger log = LoggerFactory.getLogger(LsmStore.class);
    private static final long MAX_BATCH_BYTES = 4L << 20;

    private final Path dir;
    private final StorageFiles files;
    private final StoreOptions opt;
    private final VersionSet versions;
    private final ReentrantLock mutex;
    private final Condition changed;
    private final ScheduledExecutorService syncer;
    private final MemtableFlush flushes;
    /**
     * Writers waiting their turn, the head leading. Each {@link #write(List)} call waits on its own
     * condition, shared by its writers, and is woken only when one of them is done or has become
     * the head.
     */
    private final ArrayDeque<Writer> writers = new ArrayDeque<>();
    /** The current leader's group and its entries; empty between groups. */
    private final List<Writer> batch = new ArrayList<>();
    private final List<Entry> batchEntries = new ArrayList<>();
    private volatile WalWriter wal;
    private volatile IOException writeError;
    private long failedAt; // when writeError came (nanoTime); recoverable: a log's failure, not a memtable's
    private boolean recoverable;
    static final long RECOVER_AFTER_NANOS = 2_000_000_000L; // after a log failure, before a write tries a new one
    /** Stalled writes, and failed log switches, are each logged once per 5 s. */
    private final WarningThrottle stallLog = new WarningThrottle(5_000_000_000L), rotateFailureLog = new WarningThrottle(5_000_000_000L);
    /** Failed periodic syncs: syncer thread only. */
    private final WarningThrottle syncFailureLog = new WarningThrottle(10_000_000_000L);
    /** The size at which the active memtable is rotated, drawn anew for each memtable: see {@link #flushThreshold}. */
    private long activeLimit;

    /** One entry of a {@link #write} call, queued. */
    private static final class Writer {
        final Entry entry;
        final long recordBytes;
        final Call call;
        boolean done;
        IOException error;

        Writer(Entry entry, Call call) {
            this.entry = entry;
            this.recordBytes = LogRecord.size(entry);
            this.call = call;
        }
    }

    /**
     * One {@link #write} call, shared by its writers: the condition its thread waits on, made only
     * when it first has to wait (a writer that finds the queue empty leads at once, and never does).
     */
    private static final class Call {
        Condition turn;
    }

    /** With the mutex held: wakes the thread of {@code c} if it waits. */
    private static void wake(Call c) {
        if (c.turn != null) c.turn.signal();
    }

    WriteQueue(Path dir, StoreOptions opt, VersionSet versions, ScheduledExecutorService syncer, MemtableFlush flushes) {
        this.dir = dir;
        this.files = opt.files();
        this.opt = opt;
        this.versions = versions;
        this.mutex = versions.mutex;
        this.changed = versions.changed;
        this.syncer = syncer;
        this.flushes = flushes;
    }

    /** By recovery, as soon as it has created the first log: writes go to it once the store is open. */
    void start(WalWriter first) {
        wal = first;
        activeLimit = flushThreshold();
    }

    /** The error that made the store refuse writes, or null. */
    IOException failure() { return writeError; }

    /** The bytes in the current log. */
    long walBytes() { return wal.bytes(); }

    /** With the mutex held: waits until no writer is queued. */
    void awaitIdle() {
        while (!writers.isEmpty()) changed.awaitUninterruptibly();
    }

    /** With the mutex held, by close(): syncs and closes the current log. */
    void closeLog() throws IOException {
        wal.sync();
        wal.close();
    }

    /** By a failed open: closes the log recovery started, if it got that far. */
    void abandonLog() {
        try {
            if (wal != null) wal.close();
        } catch (IOException e) {
            log.warn("closing log after failed open: {}", e.toString());
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

    /**
     * Writes the entries in order, as one call (a put or delete is a call of one): they join the
     * writers' queue together, so the group commit that takes the first of them takes the rest too
     * (one log append for all, up to the group's byte limit), where separate calls from one thread
     * would commit one at a time.
     * Returns when all are written. Not atomic: readers may see some before the call returns, and
     * a call that fails may have written some of them (they are then in the log, and a reopen
     * replays them).
     */
    void write(List<Entry> entries) throws IOException {
        if (entries.isEmpty()) return;
        Call call = new Call();
        List<Writer> mine = writersOf(entries, call);
        mutex.lock();
        try {
            if (versions.closed() || versions.stopping) throw new IOException("store " + dir + " is closed");
            commit(mine, call);
        } finally {
            mutex.unlock();
        }
    }

    /**
     * {@link #write} when this thread can lead the group at once and nothing in it waits: the
     * policy is {@link SyncPolicy#PERIODIC} (no fsync), the mutex is free, no writer is queued, and
     * the active memtable has room without a slowdown, a stall or a log switch. Otherwise returns
     * false, having written nothing. For a thread that must not block, such as an event loop: the
     * log append is then its only wait, a write to the page cache.
     */
    boolean tryWrite(List<Entry> entries) throws IOException {
        if (entries.isEmpty()) return true;
        if (opt.syncPolicy() != SyncPolicy.PERIODIC) return false;
        Call call = new Call();
        List<Writer> mine;
        try {
            mine = writersOf(entries, call);
        } catch (IllegalArgumentException e) {
            return false; // an entry write() refuses: write() says why
        }
        long bytes = 0;
        for (Writer w : mine) bytes += w.recordBytes;
        // All of them in one group, so its leader, this thread, never waits for a second one.
        if (bytes > MAX_BATCH_BYTES) return false;
        if (!mutex.tryLock()) return false;
        try {
            Version v = versions.current();
            if (!writers.isEmpty() || writeError != null || versions.closed() || versions.stopping
                    || v.tables.size() >= opt.slowdownTables() || v.active.bytes() >= activeLimit) {
                return false;
            }
            commit(mine, call);
            return true;
        } finally {
            mutex.unlock();
        }
    }

    /** The queued form of {@code entries}, one writer each, all of {@code call}. */
    private static List<Writer> writersOf(List<Entry> entries, Call call) {
        List<Writer> mine = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            if (e.key() == null) throw new IllegalArgumentException("null key");
            Writer w = new Writer(e, call);
            if (w.recordBytes > LogRecord.MAX_BODY) throw new IllegalArgumentException("entry too large");
            mine.add(w);
        }
        return mine;
    }

    /**
     * With the mutex held: queues {@code mine} (all of {@code call}) and waits until they are
     * written, leading the groups that start with them; throws if any failed.
     */
    private void commit(List<Writer> mine, Call call) throws IOException {
        Writer last = mine.getLast();
        writers.addAll(mine);
        while (!last.done) {
            Writer head = writers.peekFirst();
            if (head != null && head.call == call) {
                try {
                    lead(head);
                } catch (IOException | RuntimeException | Error ex) {
                    // lead() took the head out; the rest of this call's entries leave too.
                    writers.removeIf(x -> x.call == call);
                    handOver();
                    throw ex;
                }
            } else {
                if (call.turn == null) call.turn = mutex.newCondition();
                call.turn.awaitUninterruptibly();
            }
        }
        for (Writer w : mine) {
            if (w.error != null) throw new IOException("write failed: " + w.error.getMessage(), w.error);
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
        // Reused by each leader in turn: there is one at a time, and it empties them before handing over.
        List<Writer> batch = this.batch;
        List<Entry> entries = this.batchEntries;
        batch.clear();
        entries.clear();
        long bytes = 0;
        for (Writer x : writers) {
            if (!batch.isEmpty() && bytes + x.recordBytes > MAX_BATCH_BYTES) break;
            batch.add(x);
            entries.add(x.entry);
            bytes += x.recordBytes;
        }
        Memtable mem = versions.current().active;
        WalWriter log = wal;
        IOException err = null;
        mutex.unlock();
        try {
            log.append(entries);
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
            failedAt = System.nanoTime();
            recoverable = !(err.getCause() instanceof RuntimeException || err.getCause() instanceof Error);
            WriteQueue.log.error("write-ahead log {} failed, store {} refuses further writes: {}", log.path, dir, err.toString());
            versions.counters.errors.record("write-ahead log " + log.path + " failed: " + err);
        }
        Call previous = w.call;
        for (Writer x : batch) {
            writers.pollFirst();
            x.error = err;
            x.done = true;
            if (x.call != previous) wake(x.call);
            previous = x.call;
        }
        batch.clear();
        entries.clear(); // a borrowed value is valid only until its write returns
        handOver();
        if (err != null) throw new IOException("write failed: " + err.getMessage(), err);
    }

    /** With the mutex held, by a leader leaving the queue: wakes the next leader, or whoever waits for an empty queue. */
    private void handOver() {
        Writer next = writers.peekFirst();
        if (next != null) {
            wake(next.call);
        } else {
            changed.signalAll();
        }
    }

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
                if (writeError != null && !recover()) {
                    throw new IOException("store " + dir + " refuses writes after a log failure", writeError);
                }
                if (versions.closed() || versions.stopping) throw new IOException("store " + dir + " is closed");
                Version v = versions.current();
                if (!slowed && v.tables.size() >= opt.slowdownTables()) {
                    slowed = true; // compaction is behind: delay this batch a little, without failing it
                    versions.counters.writeSlowdowns.increment();
                    interrupted |= awaitChange(1);
                } else if (v.active.bytes() < activeLimit) {
                    return;
                } else if (v.immutables.size() >= opt.maxImmutableMemtables()) {
                    if (stallLog.allow()) log.warn("writes stalled: {} memtables waiting for flush", v.immutables.size());
                    long stalledAt = System.nanoTime();
                    versions.counters.writeStalls.increment();
                    interrupted |= awaitChange(100);
                    versions.counters.writeStallNanos.add(System.nanoTime() - stalledAt);
                } else {
                    rotate();
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /**
     * With the mutex held, after a log failure: starts a new log and memtable once
     * {@link #RECOVER_AFTER_NANOS} have passed since the failure (or the last try); returns whether
     * writes may go on; not while the flush queue is full (on a disk still full, each try would add
     * a memtable). The failed log's memtable is flushed as at any switch (docs/storage-format.md).
     */
    private boolean recover() {
        long now = System.nanoTime();
        boolean queueFull = versions.current().immutables.size() >= opt.maxImmutableMemtables();
        if (!recoverable || now - failedAt < RECOVER_AFTER_NANOS || queueFull) return false;
        failedAt = now;
        try {
            rotate();
        } catch (IOException e) {
            return false;
        }
        log.warn("store {}: a new write-ahead log replaced the one that failed ({}); writes are tried again", dir, writeError.getMessage());
        writeError = null;
        return true;
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
    void rotate() throws IOException {
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
        if (opt.syncPolicy() != SyncPolicy.PERIODIC || !offload(() -> old.retire(files, dir, true))) {
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
            old.retire(files, dir, false);
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
        versions.counters.errors.record("cannot start a new write-ahead log " + p + ": " + e);
        if (rotateFailureLog.allow()) {
            log.error("cannot start a new write-ahead log {}: {}; writes fail until one can be created", p, e.toString());
        }
        return new IOException("cannot start a new write-ahead log " + p + ": " + e.getMessage(), e);
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

    /** On the syncer thread, under {@link SyncPolicy#PERIODIC}: syncs the current log. */
    void periodicSync() {
        WalWriter w = wal;
        try {
            w.sync();
        } catch (ClosedChannelException e) {
            // rotated meanwhile: rotation synced it before closing
        } catch (IOException e) {
            long failed = syncFailureLog.occurred(); // every 100 ms while the disk fails: a line per 10 s
            if (failed > 0) {
                log.error("periodic sync of {} failed{}: {}", w.path,
                        failed > 1 ? " (" + failed + " times since the last such line)" : "", e.toString());
            }
            versions.counters.errors.record("periodic sync of " + w.path + " failed: " + e);
        }
    }
}
