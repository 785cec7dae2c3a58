package dht.storage;

import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An immutable snapshot of what a reader must consult: the active memtable, the immutable ones
 * waiting for flush, and the live tables. Reference counted: the store holds one reference to the
 * current version, each get or open scan one more; when the count drops to zero the version lets
 * go of its memtables and tables (which free their native memory, or unmap, when no version holds
 * them).
 */
final class Version {
    private static final Logger log = LoggerFactory.getLogger(LsmStore.class);
    final Memtable active;
    final List<Memtable> immutables; // oldest first
    final List<Table> tables;
    /**
     * The same tables by {@link Table#maxTimestamp}, greatest first: the order a point read consults
     * them in, so that it can stop at the first table that cannot hold anything newer than what it
     * found.
     */
    final List<Table> newestFirst;
    private final AtomicInteger refs = new AtomicInteger(1);

    Version(Memtable active, List<Memtable> immutables, List<Table> tables) {
        this.active = active;
        this.immutables = List.copyOf(immutables);
        this.tables = List.copyOf(tables);
        this.newestFirst = this.tables.stream()
                .sorted(Comparator.comparingLong((Table t) -> t.maxTimestamp).reversed())
                .toList();
        active.retain();
        for (Memtable m : this.immutables) m.retain();
        for (Table t : this.tables) t.retain();
    }

    /** Takes a reference unless the version is already released. */
    boolean tryRetain() {
        while (true) {
            int r = refs.get();
            if (r <= 0) return false;
            if (refs.compareAndSet(r, r + 1)) return true;
        }
    }

    void release() {
        if (refs.decrementAndGet() == 0) {
            active.release();
            for (Memtable m : immutables) m.release();
            for (Table t : tables) t.release();
        }
    }

    /**
     * {@link #release}, the last one made on {@code freeing} (or here, if it refuses: a closed
     * store's): a reader that may be on an event loop does not pay for closing arenas, unmapping
     * and deleting tables. {@code freeing} must run or refuse every task (a plain pool, not a
     * scheduled one, which may cancel a task it takes while terminating).
     */
    void release(Executor freeing) {
        while (true) {
            int r = refs.get();
            if (r <= 1) break; // may be the last: decremented over there (the count stays exact either way)
            if (refs.compareAndSet(r, r - 1)) return;
        }
        try {
            freeing.execute(this::releaseLogged);
        } catch (Throwable refused) { // refused, or no heap for the task: free here rather than leak
            release();
        }
    }

    private void releaseLogged() {
        try {
            release();
        } catch (RuntimeException | Error e) {
            log.warn("freeing a replaced version's memtables and tables failed: {}", e.toString());
        }
    }
}
