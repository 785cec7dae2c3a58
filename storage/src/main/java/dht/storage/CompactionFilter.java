package dht.storage;

import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a compaction writes out of its merged inputs: every entry except the tombstones it may
 * forget. A tombstone is dropped only when it is older than {@link StoreOptions#tombstoneGrace}
 * and no table outside the compaction and no memtable of the compaction's snapshot can hold a
 * version of its key (one it would otherwise stop shadowing); a table that cannot be read there
 * keeps the tombstone. Shadowed versions are already gone: the input is a {@link MergingIterator}.
 *
 * <p>Also the compaction's pacing: it logs progress (rate, ETA) every 10 seconds, stops with
 * {@link Cancelled} once the store is closing, and with {@link StoreOptions#compactionBytesPerSecond}
 * set reads no faster than that: once ahead of the rate by a millisecond or more it sleeps the
 * difference, so the compaction thread gives its core back in short gaps instead of holding it for
 * the whole compaction.
 */
final class CompactionFilter implements Iterator<Entry> {
    private static final Logger log = LoggerFactory.getLogger(CompactionFilter.class);
    private static final long PROGRESS_NANOS = 10_000_000_000L;

    /** Thrown out of the iteration when the store closes mid-compaction; nothing was installed. */
    static final class Cancelled extends RuntimeException {
        Cancelled() { super("store closing", null, false, false); }
    }

    private final Iterator<Entry> in;
    private final Version v;
    private final List<Table> others;
    private final long totalBytes;
    private final long outNumber;
    private final StoreOptions opt;
    private final BooleanSupplier stopping;
    private final long t0 = System.nanoTime();
    /**
     * Tombstones written before this instant are past their grace. Fixed when the compaction starts:
     * reading the clock for every entry was 8% of a compaction's CPU time on a VM (clock_gettime).
     */
    private final long horizon;
    private long lastLog = t0;
    private long seenBytes;
    /** Entries read since the clock was last consulted for progress and pacing, and {@link #seenBytes} then. */
    private int sinceClock;
    private long bytesAtClock;
    /**
     * Bytes between looks at the clock: 64 KiB, or a millisecond's worth at the paced rate if that
     * is less, so the pacing still sleeps no more than about a millisecond at a time and a closing
     * store waits no longer for it.
     */
    private final long clockBytes;
    private Entry next;

    /**
     * @param v          the snapshot the compaction started from (its memtables are consulted)
     * @param others     the snapshot's tables that are not inputs of this compaction
     * @param totalBytes the inputs' size, for the progress line's ETA
     * @param outNumber  the output table's number, for the progress line
     */
    CompactionFilter(Iterator<Entry> in, Version v, List<Table> others, long totalBytes, long outNumber,
                     StoreOptions opt, BooleanSupplier stopping) {
        this.in = in;
        this.v = v;
        this.others = others;
        this.totalBytes = totalBytes;
        this.outNumber = outNumber;
        this.opt = opt;
        this.stopping = stopping;
        this.horizon = System.currentTimeMillis() - opt.tombstoneGrace().toMillis();
        long rate = opt.compactionBytesPerSecond();
        this.clockBytes = rate == 0 ? 65_536 : Math.max(1, Math.min(65_536, rate / 1000));
        advance();
    }

    private void advance() {
        next = null;
        while (in.hasNext()) {
            if (stopping.getAsBoolean()) throw new Cancelled();
            Entry e = in.next();
            seenBytes += TableFormat.ENTRY_HEADER + e.key().length + e.valueLength();
            // Every 64 entries (a few microseconds of work) or clockBytes, whichever first: a run of
            // large values still checks the clock often.
            if (++sinceClock >= 64 || seenBytes - bytesAtClock >= clockBytes) {
                sinceClock = 0;
                bytesAtClock = seenBytes;
                progress();
                throttle();
            }
            if (e.isTombstone() && opt.timestampMillis().applyAsLong(e.timestamp()) < horizon && !heldElsewhere(e.key())) {
                continue;
            }
            next = e;
            return;
        }
    }

    private boolean heldElsewhere(byte[] key) {
        long hash = Bytes.hash(key);
        if (v.active.get(key, hash) != null) return true;
        for (Memtable m : v.immutables) if (m.get(key, hash) != null) return true;
        for (Table t : others) {
            try {
                if (t.get(key, hash) != null) return true;
            } catch (CorruptionException e) {
                return true; // cannot prove the key absent there: keep the tombstone
            }
        }
        return false;
    }

    private void throttle() {
        pace(t0, seenBytes);
    }

    /**
     * With a rate set, sleeps once {@code bytes} read since {@code since} are a millisecond or more
     * ahead of it: in slices of at most 10 ms, looking for a closing store between them, since one
     * large value can put a paced compaction seconds ahead (a graceful stop must end within 10 s).
     */
    private void pace(long since, long bytes) {
        long rate = opt.compactionBytesPerSecond();
        if (rate == 0) return;
        while (true) {
            long ahead = since + (long) (bytes * 1e9 / rate) - System.nanoTime();
            if (ahead < 1_000_000L) return;
            if (stopping.getAsBoolean()) throw new Cancelled();
            LockSupport.parkNanos(Math.min(ahead, 10_000_000L));
        }
    }

    /**
     * The compaction's second pass over its inputs: every data block checked against its CRC again
     * (see the caller), paced like the merge, since it reads as many bytes again (unpaced, it read
     * a compaction's whole input at full speed right after the merge had been held to the rate).
     * Throws at the first damaged block, {@link Cancelled} once the store is closing.
     */
    void checkInputsAgain(List<Table> inputs) throws CorruptionException {
        long since = System.nanoTime();
        long bytes = 0;
        long pacedAt = 0;
        for (Table t : inputs) {
            for (int i = 0; i < t.blockCount(); i++) {
                if (stopping.getAsBoolean()) throw new Cancelled();
                bytes += t.checkBlock(i);
                if (bytes - pacedAt >= clockBytes) { // across tables: one of few large blocks is paced too
                    pacedAt = bytes;
                    pace(since, bytes);
                }
            }
        }
    }

    private void progress() {
        long now = System.nanoTime();
        if (now - lastLog < PROGRESS_NANOS) return;
        lastLog = now;
        double secs = (now - t0) / 1e9;
        double rate = seenBytes / secs;
        long eta = rate > 0 ? (long) ((totalBytes - seenBytes) / rate) : -1;
        log.info("compaction into table {}: {} of ~{} MB, {} MB/s, ETA {} s", outNumber, seenBytes >> 20, totalBytes >> 20,
                String.format(Locale.ROOT, "%.1f", rate / 1e6), Math.max(eta, 0));
    }

    @Override
    public boolean hasNext() { return next != null; }

    @Override
    public Entry next() {
        if (next == null) throw new NoSuchElementException();
        Entry e = next;
        advance();
        return e;
    }
}
