package dht.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flush job: writes the immutable memtables to tables, oldest first, installs each
 * ({@link VersionSet#installFlush}, which deletes its log) and then schedules a compaction.
 *
 * <p>Invariants: flushes run one at a time, on the flusher thread only. A memtable leaves the
 * version only once a durable manifest names its table, so a failed flush loses nothing: its log
 * stays for replay, and a background flush is retried a second later (on the syncer thread's
 * timer) until it succeeds. Holds no lock of its own; takes the mutex briefly to pick a memtable.
 * Logs under {@link LsmStore}'s name (bench/scripts/runlog.py reads the flushing/flushed lines).
 */
final class MemtableFlush {
    private static final Logger log = LoggerFactory.getLogger(LsmStore.class);

    private final Path dir;
    private final StorageFiles files;
    private final StoreOptions opt;
    private final VersionSet versions;
    private final ExecutorService flusher;
    private final ScheduledExecutorService syncer;
    private final Compaction compaction;
    /**
     * A background flush that fails is retried every second: on a full disk each try failed with
     * the same words, two lines a second. Its failures are logged at most once per 10 s, with how
     * many tries failed since the last line. Used on the flusher thread only.
     */
    private final WarningThrottle retryLog = new WarningThrottle(10_000_000_000L);
    /** The log number of the memtable whose last flush try failed, or -1: its retries do not announce themselves again. */
    private long failedLog = -1;
    /** Whether a retry of a failed flush is scheduled; flusher thread only. */
    private boolean retryScheduled;

    MemtableFlush(Path dir, StoreOptions opt, VersionSet versions, ExecutorService flusher,
                  ScheduledExecutorService syncer, Compaction compaction) {
        this.dir = dir;
        this.files = opt.files();
        this.opt = opt;
        this.versions = versions;
        this.flusher = flusher;
        this.syncer = syncer;
        this.compaction = compaction;
    }

    /** Queues a background flush of the immutable memtables; any thread may call. */
    void schedule() {
        flusher.execute(this::flushPending);
    }

    /** Flushes every immutable memtable and waits for it; throws if one could not be flushed. */
    void flushAll() throws IOException {
        Future<Boolean> f = flusher.submit(() -> flushPending(true));
        try {
            if (!f.get()) throw new IOException("flush failed (see log); the write-ahead logs are kept for replay");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while flushing", e);
        } catch (ExecutionException e) {
            throw new IOException("flush failed", e.getCause());
        }
    }

    /** The scheduled retry, on the flusher thread: the next failure may schedule another. */
    private void retry() {
        retryScheduled = false;
        flushPending();
    }

    /** Background flushing: a failed flush is retried a second later, until it succeeds. */
    private void flushPending() {
        if (versions.stopping) return; // close() flushes itself and must be the last to touch the files
        flushPending(false);
    }

    /**
     * Flushes the immutable memtables, oldest first. On failure either retries (background) or
     * gives up and returns false ({@code giveUp}: someone is waiting); the memtable's log stays,
     * so nothing acknowledged is lost either way.
     */
    private boolean flushPending(boolean giveUp) {
        while (true) {
            Memtable m;
            long n;
            versions.mutex.lock();
            try {
                if (versions.current().immutables.isEmpty()) return true;
                m = versions.current().immutables.getFirst();
                m.retain(); // ours until the flush is over, whatever happens to the versions meanwhile
                n = versions.newFileNumber();
            } finally {
                versions.mutex.unlock();
            }
            try {
                flush(m, n, m.logNumber == failedLog);
                failedLog = -1;
            } catch (IOException | RuntimeException | Error e) {
                // An Error too (an OutOfMemoryError while the heap is full of request bodies): if it
                // escaped, the flusher thread would die with no retry scheduled, and writes would
                // stall behind the memtables waiting for it.
                failedLog = m.logNumber;
                // Someone waits for a flush that gives up, and is told to read the log: always a line.
                long tries = giveUp ? 1 : retryLog.occurred();
                if (tries > 0) {
                    log.error("flush of log {} to table {} failed{}: {}{}", m.logNumber, n, giveUp ? "" : ", retrying every 1 s",
                            e.toString(), tries > 1 ? " (" + tries + " tries failed since the last such line)" : "");
                }
                versions.counters.errors.record("flush of log " + m.logNumber + " to table " + n + " failed: " + e);
                // Unless the manifest may name the table already (renamed in place, then the directory's
                // fsync failed): then it stays, and the next open removes it if the manifest does not.
                if (!(e instanceof VersionSet.ManifestUncertainException)) {
                    try {
                        files.delete(FileNames.table(dir, n));
                    } catch (IOException ex) {
                        log.warn("could not delete {}: {}", FileNames.table(dir, n), ex.toString());
                    }
                }
                if (!giveUp && !versions.stopping && !retryScheduled) {
                    // Retry later without holding the flusher thread, so a waiting flush() or
                    // close() gets its turn (and its error) instead of waiting forever. One retry
                    // at a time: every log switch queues a flush too, and each failing one would
                    // otherwise start a retry chain of its own.
                    try {
                        syncer.schedule(() -> flusher.execute(this::retry), 1, TimeUnit.SECONDS);
                        retryScheduled = true;
                    } catch (RejectedExecutionException ex) {
                        log.warn("flush retry not scheduled: store closing; log {} is kept for replay", m.logNumber);
                    }
                }
                return false;
            } finally {
                m.release(); // after the install, when no reader holds it: its native memory goes here, outside the mutex
            }
        }
    }

    /** {@code again}: a retry of a flush of {@code m} that failed, whose start is not logged again. */
    private void flush(Memtable m, long n, boolean again) throws IOException {
        long t0 = System.nanoTime();
        Table t = m.isEmpty() ? null : writeTable(files, dir, opt, m, n, versions.counters.errors, again);
        versions.installFlush(m, t);
        versions.counters.flushes.increment();
        versions.counters.flushNanos.add(System.nanoTime() - t0);
        if (t != null) versions.counters.flushBytes.add(t.sizeBytes);
        compaction.schedule();
    }

    /**
     * Writes a memtable to table {@code n} of {@code dir}, fsynced, and opens it, its damage counted
     * in {@code errors}; {@code again}: a retry, whose start is logged at debug level only.
     */
    static Table writeTable(StorageFiles files, Path dir, StoreOptions opt, Memtable mem, long n, StorageErrors errors,
                            boolean again) throws IOException {
        long t0 = System.nanoTime();
        Path p = FileNames.table(dir, n);
        if (again) {
            log.debug("flushing memtable of log {} to {} again", mem.logNumber, p.getFileName());
        } else {
            log.info("flushing memtable of log {} ({} entries, ~{} bytes) to {}", mem.logNumber, mem.count(), mem.bytes(),
                    p.getFileName());
        }
        long count = TableWriter.write(files, p, mem.borrowingIterator(), mem.count(), opt);
        Table t = Table.open(files, p, n, errors);
        log.info("flushed memtable of log {} ({} entries) to {} ({} bytes) in {} ms", mem.logNumber,
                count, p.getFileName(), t.sizeBytes, (System.nanoTime() - t0) / 1_000_000);
        return t;
    }
}
