package dht.storage;

import java.io.IOException;

/**
 * The storage engine seen from outside: a sorted map from keys to their newest version.
 *
 * <p>Keys order as unsigned bytes. Writes are last-write-wins by timestamp inside the engine
 * (see {@link Entry#supersedes}): a write that carries an older version than the stored one does
 * not replace it, whatever the arrival order. A write returns only once it is in the write-ahead
 * log under the configured sync policy. All methods are thread-safe.
 */
public interface Store extends AutoCloseable {

    void put(byte[] key, byte[] value, long timestamp) throws IOException;

    void delete(byte[] key, long timestamp) throws IOException;

    /**
     * Writes each entry (a value or a tombstone, with its timestamp) as {@link #put} or
     * {@link #delete} would, in order, returning when all are written. An engine may commit them
     * together, which is cheaper than one call each. Not atomic: readers may see some before the
     * call returns, and a call that fails may have written some of them.
     */
    default void write(java.util.List<Entry> entries) throws IOException {
        for (Entry e : entries) {
            if (e.expiry() != 0) throw new UnsupportedOperationException("this store keeps no expiry; override write");
            if (e.isTombstone()) delete(e.key(), e.timestamp());
            else put(e.key(), e.value(), e.timestamp());
        }
    }

    /**
     * {@link #write} if this thread can do it without waiting: for another writer, a flush or
     * compaction that lags, or an fsync; otherwise writes nothing and returns false. For a caller
     * that must not block (an event loop), which then hands the write to a thread that may. A
     * store that cannot tell declines: this default, and every wrapper that does not say otherwise.
     */
    default boolean tryWrite(java.util.List<Entry> entries) throws IOException {
        return false;
    }

    /**
     * Whether a {@link #get} now would wait for nothing but memory: no disk read, no lock held
     * across I/O, or, made in {@link ReadsWithoutWaiting}'s scope, throw {@link WouldWaitException}
     * before it would. For a caller that must not block (an event loop), which makes its reads
     * itself, in that scope, while this holds, and hands them over otherwise (also the ones that
     * throw). A store that cannot tell says no: this default. Only a hint: the answer may be stale
     * by the time the read runs.
     */
    default boolean readsWithoutWaiting() throws IOException {
        return false;
    }

    /**
     * The newest version of the key (a value or a tombstone), or {@code null} if none is known. A
     * value past its {@link Entry#expiry} (by this node's clock) reads as a tombstone with its timestamp.
     */
    Entry get(byte[] key) throws IOException;

    /**
     * The newest version of the key as {@link #get(byte[])} returns it (an expired value: a
     * tombstone with its timestamp), without its value, or {@code null} if none is known. An engine
     * that can finds it without copying the value; this default reads the entry.
     */
    default Stamp stamp(byte[] key) throws IOException {
        return Stamp.of(get(key));
    }

    /**
     * As {@link #stamp}, but an expired value's stamp as it is stored, not read as a tombstone: for
     * anti-entropy's hash trees, which must place a version in the same trees before and after it
     * expires. This default is {@link #stamp}, for a store that keeps no expiry.
     */
    default Stamp storedStamp(byte[] key) throws IOException {
        return stamp(key);
    }

    /**
     * {@link #get(byte[])} with the returned value's length reserved in {@code budget} (see
     * {@link ReadBudget} for who gives it back). Throws {@link ReadBudgetExceededException}, with
     * nothing reserved, if the budget cannot take the value. An engine that can should reserve
     * before it copies the value: this default reads first, so it bounds only what is held after.
     */
    default Entry get(byte[] key, ReadBudget budget) throws IOException {
        Entry e = get(key);
        if (e != null && !e.isTombstone() && !budget.tryReserve(e.valueLength())) {
            throw new ReadBudgetExceededException(e.valueLength());
        }
        return e;
    }

    /**
     * The newest version of every key in {@code [from, to)}, sorted, tombstones included (an
     * expired value reads as one, as in {@link #get(byte[])}), read lazily. {@code to == null} means no upper bound. The iterator sees a consistent set of
     * tables until it is closed, even if compaction replaces them meanwhile. A damaged table block
     * in the range makes {@code hasNext()}/{@code next()} throw an {@link java.io.UncheckedIOException}
     * wrapping a {@link CorruptionException} when the scan reaches it: a scan is never silently
     * short of entries.
     */
    CloseableIterator<Entry> scan(byte[] from, byte[] to) throws IOException;

    /**
     * {@link #scan(byte[], byte[])} for a caller that writes each value out before it asks for the
     * next (a scan streamed to a client): values may be borrowed ({@link Entry#isBorrowed}), valid
     * until the iterator is closed, which the caller must do even after reading to the end. Memory
     * that the engine takes onto the heap for the scan (a compressed block it decompresses) is
     * reserved in {@code budget} while the scan reads it and given back as it moves on or is
     * closed; when the budget cannot take it, {@code hasNext()}/{@code next()} throw an
     * {@link java.io.UncheckedIOException} wrapping a {@link ReadBudgetExceededException}, an
     * expected condition (retry later). This default copies, as the plain scan does.
     */
    default CloseableIterator<Entry> scan(byte[] from, byte[] to, ReadBudget budget) throws IOException {
        return scan(from, to);
    }

    /**
     * As {@link #scan(byte[], byte[], ReadBudget)} with no budget, values borrowed, but expired
     * values as they are stored, not read as tombstones (see {@link #storedStamp}). This default is
     * that scan, for a store that keeps no expiry.
     */
    default CloseableIterator<Entry> storedScan(byte[] from, byte[] to) throws IOException {
        return scan(from, to, ReadBudget.UNLIMITED);
    }

    /**
     * Removes every version of each key {@code drop} accepts, leaving no tombstone: for copies that
     * belong to other nodes once the cluster's membership changed (a cleanup), never for deletes.
     * {@code drop} is asked once per key, with its newest version written before the call (whose
     * key and {@link Entry#copies} decide). Versions written while it runs may stay. Returns how
     * many keys were removed.
     */
    default long purge(java.util.function.Predicate<Entry> drop) throws IOException {
        throw new UnsupportedOperationException("this store cannot purge keys");
    }

    /** Figures for monitoring: a snapshot, cheap to take. */
    StoreStats stats();

    /** The engine's running totals since it opened (a store that keeps none: all zero). */
    default EngineCounters counters() {
        return new EngineCounters();
    }

    /** Writes what is held in memory out to tables and waits for it; an engine without tables does nothing. */
    default void flush() throws IOException {
    }

    /**
     * Merges every table into one (a major compaction), forgetting what compaction may forget, and
     * waits for it; an engine without tables does nothing.
     */
    default void compact() throws IOException {
    }

    /** Flushes, stops background work and releases the directory lock. Safe while reads are in flight. */
    @Override
    void close() throws IOException;
}
