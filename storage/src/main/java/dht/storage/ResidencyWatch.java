package dht.storage;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells {@link LsmStore#readsWithoutWaiting}: whether a point read of a version is memory work of a
 * few microseconds, fit for an event loop. That takes every table's index and bloom filter in the
 * page cache (its {@code metadata} {@link Residency}), each data block it reads too, which the read
 * itself asks of a table not wholly resident ({@link ReadsWithoutWaiting}), and no block or value
 * larger than {@link #INLINE_BYTES_MAX}, as a large value
 * is checksummed, decompressed and copied by the read: a 1 MiB value read on the loop, answer after
 * answer to clients that did not read them, kept a 128 MiB node in back-to-back collections
 * (LargeAnswersProcessTest).
 *
 * <p>Invariants: the caller (an event loop) reads the last answers only; the checks that are due run
 * on a background executor, one pass at a time per store; a table never checked counts as not
 * resident, so a new table sends reads to the storage threads until its first check; a table's
 * largest block is measured once, the first time it is found wholly resident (the walk touches every
 * block, which then costs no disk read), and until then each read in the scope checks its own
 * block's size; a table whose check fails is never inlined; a pass that fails is logged and the
 * next call queues another.
 */
final class ResidencyWatch {
    /** Larger blocks or values send a store's reads to the storage threads (a thread's reused scratch). */
    static final int INLINE_BYTES_MAX = Table.SCRATCH_MAX;
    private static final Logger log = LoggerFactory.getLogger(LsmStore.class);

    private final VersionSet versions;
    private final Executor background;
    private final AtomicBoolean queued = new AtomicBoolean();

    ResidencyWatch(VersionSet versions, Executor background) {
        this.versions = versions;
        this.background = background;
    }

    /**
     * Whether every table's index and bloom filter of {@code v} were resident at its last check and every block and memtable
     * value is small; queues the checks that are due. One large value anywhere keeps every read of
     * the store on the storage threads until a compaction drops it (or a flush, from a memtable).
     */
    boolean readsWithoutWaiting(Version v) {
        // A large value or block decides alone, until a flush or compaction drops it: no checks meanwhile.
        if (v.active.largestValue() > INLINE_BYTES_MAX) return false;
        for (Memtable m : v.immutables) if (m.largestValue() > INLINE_BYTES_MAX) return false;
        boolean all = true;
        boolean due = false;
        for (Table t : v.tables) {
            int largest = t.largestBlock;
            if (largest > INLINE_BYTES_MAX) return false; // before anything is queued
            all &= t.metadata.resident();
            due |= t.metadata.due() || t.residency.due();
        }
        if (due && queued.compareAndSet(false, true)) {
            try {
                background.execute(this::checkDue);
            } catch (RuntimeException e) { // a closing store's executor: no more checks
                queued.set(false);
            }
        }
        return all;
    }

    private void checkDue() {
        try {
            Version v = versions.acquire();
            if (v == null) return;
            try {
                for (Table t : v.tables) {
                    if (t.largestBlock > INLINE_BYTES_MAX || !(t.metadata.due() || t.residency.due())) continue;
                    try {
                        t.residency.check(); // resident: its reads skip the per-block check
                        if (t.largestBlock < 0 && t.residency.resident()) t.largestBlock = largestBlock(t);
                        t.metadata.check(); // last: a table found large is never taken for a small one
                    } catch (RuntimeException | Error e) { // a mapping that fails (a truncated file): never inline it
                        t.largestBlock = Integer.MAX_VALUE;
                        log.warn("{}: checking whether it is in the page cache failed, its reads stay on the storage threads: {}",
                                t.path, e.toString());
                    }
                }
            } finally {
                v.release();
            }
        } catch (RuntimeException | Error e) {
            log.warn("checking which tables are in the page cache failed: {}", e.toString());
        } finally {
            queued.set(false);
        }
    }

    /** The largest {@link Table#blockBytes} of {@code t}; {@link Integer#MAX_VALUE} if an index entry points outside the file. */
    static int largestBlock(Table t) {
        int largest = 0;
        try {
            for (int i = 0; i < t.blockCount(); i++) largest = Math.max(largest, t.blockBytes(i));
        } catch (IndexOutOfBoundsException damaged) {
            return Integer.MAX_VALUE; // reads of it report the damage, off the loop
        }
        return largest;
    }
}
