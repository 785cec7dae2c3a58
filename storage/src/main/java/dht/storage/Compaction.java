package dht.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compaction job: picks tables ({@link SizeTieredPicker}), merges them into one new table
 * ({@link CompactionMerge}, paced by a {@link Pacer}), checks the inputs again and installs the
 * result ({@link VersionSet#installCompaction}).
 *
 * <p>Invariants: compactions run one at a time, on the compactor thread only; a table is in at
 * most one compaction ({@code compacting}); a damaged table is never an input. A failed or
 * cancelled compaction changes nothing but its own output file, which it deletes unless the
 * manifest may name it. Holds no lock of its own; takes the manifest lock and the mutex only
 * through {@link VersionSet}. Logs under {@link LsmStore}'s name (bench/scripts/runlog.py reads
 * the compacting/compacted lines).
 */
final class Compaction {
    private static final Logger log = LoggerFactory.getLogger(LsmStore.class);

    private final Path dir;
    private final StorageFiles files;
    private final StoreOptions opt;
    private final VersionSet versions;
    private final ExecutorService compactor;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Set<Table> compacting = ConcurrentHashMap.newKeySet();

    Compaction(Path dir, StoreOptions opt, VersionSet versions, ExecutorService compactor) {
        this.dir = dir;
        this.files = opt.files();
        this.opt = opt;
        this.versions = versions;
        this.compactor = compactor;
    }

    /** Starts size-tiered compactions on the compactor thread while any is due; any thread may call. */
    void schedule() {
        if (versions.stopping) return;
        if (scheduled.compareAndSet(false, true)) {
            try {
                compactor.execute(() -> {
                    scheduled.set(false);
                    while (!versions.stopping) {
                        List<Table> inputs = pick();
                        if (inputs.isEmpty()) return;
                        // After a failure the same inputs would be picked at once, failing again in
                        // a tight loop (a full disk): the next flush schedules compaction again.
                        if (!run(inputs)) return;
                    }
                });
            } catch (RejectedExecutionException e) {
                scheduled.set(false);
            }
        }
    }

    /**
     * Compactions not finished yet, for the store's stats: the one running (its inputs are no
     * candidates, so {@link SizeTieredPicker#due} alone reads 0 while a merge of every due table
     * runs, and a caller waiting for a settled store would stop waiting too soon) plus the
     * size-tiered merges due among the other tables.
     */
    int pending() {
        return (compacting.isEmpty() ? 0 : 1) + SizeTieredPicker.due(compactable(), t -> t.sizeBytes, opt.compactionMinTables());
    }

    /** The next size-tiered merge among the tables that are neither damaged nor being compacted. */
    private List<Table> pick() {
        return SizeTieredPicker.pick(compactable(), t -> t.sizeBytes, opt.compactionMinTables());
    }

    private List<Table> compactable() {
        List<Table> candidates = new ArrayList<>();
        for (Table t : versions.current().tables) if (!t.damaged && !compacting.contains(t)) candidates.add(t);
        return candidates;
    }

    /** Merges every live table into one (a major compaction) and waits for it. */
    void compactAll() throws IOException {
        compactAll(null);
    }

    /** As {@link #compactAll()}, leaving out every version of the keys {@code drop} accepts (null: none); returns how many. */
    long compactAll(java.util.function.Predicate<Entry> drop) throws IOException {
        Future<Long> f = compactor.submit(() -> {
            List<Table> all = new ArrayList<>();
            for (Table t : versions.current().tables) if (!t.damaged) all.add(t);
            java.util.concurrent.atomic.AtomicLong dropped = new java.util.concurrent.atomic.AtomicLong();
            // even one table: rewriting it drops expired tombstones
            if (!all.isEmpty() && !run(all, drop, dropped)) {
                throw new IOException(lastAbort != null ? lastAbort : "compaction did not complete (the log says why)");
            }
            return dropped.get();
        });
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while compacting", e);
        } catch (ExecutionException e) {
            // the cause's words (a damaged block names its file and offset), not just that it failed
            Throwable cause = e.getCause();
            throw new IOException("compaction failed: " + (cause.getMessage() != null ? cause.getMessage() : cause.toString()), cause);
        }
    }

    /** On the compactor thread: merges {@code inputs} into one new table and installs it; false if it did not. */
    private boolean run(List<Table> inputs) {
        return run(inputs, null, null);
    }

    /** Why the compactor thread's last {@link #run} aborted (read and written on that thread alone), null if it did not. */
    private String lastAbort;

    /** As {@link #run(List)}, leaving out the keys {@code drop} accepts (null: none), counted in {@code dropped}. */
    private boolean run(List<Table> inputs, java.util.function.Predicate<Entry> drop, java.util.concurrent.atomic.AtomicLong dropped) {
        lastAbort = null;
        Version v = versions.acquire();
        if (v == null) return false;
        compacting.addAll(inputs);
        long n = versions.newFileNumber();
        Path out = FileNames.table(dir, n);
        long t0 = System.nanoTime();
        long inBytes = inputs.stream().mapToLong(t -> t.sizeBytes).sum();
        long inEntries = inputs.stream().mapToLong(t -> t.entryCount).sum();
        log.info("compacting {} tables ({} bytes, {} entries) into {}", inputs.size(), inBytes, inEntries,
                out.getFileName());
        try {
            List<Table> others = new ArrayList<>(v.tables);
            others.removeAll(inputs);
            List<Iterator<Entry>> sources = new ArrayList<>();
            for (Table t : inputs) sources.add(t.borrowingIterator());
            Pacer pacer = new Pacer(opt.compactionBytesPerSecond(), () -> versions.stopping);
            Iterator<Entry> in = new MergingIterator(sources);
            if (drop != null) in = new DroppingIterator(in, drop, dropped);
            CompactionMerge merged = new CompactionMerge(in, v, others, inBytes, n, opt, pacer);
            long count = TableWriter.write(files, out, merged, inEntries, opt);
            // An entry is copied from its mapped input a while after its block was checked (the
            // merge holds each input's next entry until its turn): damage in between would enter
            // the new table under a valid CRC. Damage does not heal, so every input block is checked
            // again before anything names the new table.
            checkInputsAgain(inputs, pacer);
            Table t = count == 0 ? null : Table.open(files, out, n, versions.counters.errors);
            if (t == null) files.delete(out);
            versions.installCompaction(inputs, t);
            versions.counters.compactions.increment();
            versions.counters.compactionNanos.add(System.nanoTime() - t0);
            versions.counters.compactionBytesRead.add(inBytes);
            if (t != null) versions.counters.compactionBytesWritten.add(t.sizeBytes);
            double secs = (System.nanoTime() - t0) / 1e9;
            log.info("compacted {} tables ({} bytes, {} entries) into {} ({} bytes, {} entries) in {} s, {} MB/s",
                    inputs.size(), inBytes, inEntries, t == null ? "nothing" : out.getFileName(),
                    t == null ? 0 : t.sizeBytes, count, String.format("%.1f", secs),
                    String.format("%.1f", inBytes / 1e6 / Math.max(secs, 1e-3)));
            return true;
        } catch (UncheckedIOException | IOException | CompactionCancelledException e) {
            Throwable c = e instanceof UncheckedIOException u ? u.getCause() : e;
            if (c instanceof CompactionCancelledException) {
                log.info("compaction into {} cancelled: store closing", out.getFileName());
            } else {
                log.error("compaction into {} aborted: {}", out.getFileName(), c.getMessage());
                versions.counters.errors.record("compaction into " + out.getFileName() + " aborted: " + c.getMessage());
            }
            lastAbort = "compaction into " + out.getFileName() + " aborted: " + c.getMessage();
            // Once the manifest may name the new table (renamed in place, then its directory's fsync
            // failed), it must stay: if the manifest does not name it, the next open removes it.
            if (!(c instanceof VersionSet.ManifestUncertainException)) {
                try {
                    files.delete(out);
                } catch (IOException ex) {
                    log.warn("could not delete {}: {}", out, ex.toString());
                }
            }
            return false;
        } finally {
            compacting.removeAll(inputs);
            v.release();
        }
    }

    /**
     * The second pass over the inputs: every data block checked against its CRC again, paced like
     * the merge, since it reads as many bytes again. Throws at the first damaged block,
     * {@link CompactionCancelledException} once the store is closing.
     */
    private static void checkInputsAgain(List<Table> inputs, Pacer pacer) throws CorruptionException {
        long since = System.nanoTime();
        long bytes = 0;
        long pacedAt = 0;
        for (Table t : inputs) {
            for (int i = 0; i < t.blockCount(); i++) {
                pacer.checkStopping();
                bytes += t.checkBlock(i);
                if (bytes - pacedAt >= pacer.clockBytes()) { // across tables: one of few large blocks is paced too
                    pacedAt = bytes;
                    pacer.pace(since, bytes);
                }
            }
        }
    }
}
