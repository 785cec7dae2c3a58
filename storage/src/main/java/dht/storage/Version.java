package dht.storage;

import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An immutable snapshot of what a reader must consult: the active memtable, the immutable ones
 * waiting for flush, and the live tables. Reference counted: the store holds one reference to the
 * current version, each get or open scan one more; when the count drops to zero the version lets
 * go of its memtables and tables (which free their native memory, or unmap, when no version holds
 * them).
 */
final class Version {
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
     * {@link #release}, the last one made on {@code freeing} (or here, if it refuses): a reader that
     * may be on an event loop does not pay for closing arenas, unmapping and deleting tables.
     */
    void release(Executor freeing) {
        while (true) {
            int r = refs.get();
            if (r <= 1) break; // may be the last: decremented over there (the count stays exact either way)
            if (refs.compareAndSet(r, r - 1)) return;
        }
        try {
            freeing.execute(this::release);
        } catch (RejectedExecutionException e) {
            release();
        }
    }
}
