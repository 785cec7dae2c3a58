package dht.storage;

import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a compaction writes out of its merged inputs: every entry except the tombstones it may
 * forget. A value that expired (by this node's clock at the compaction's start) more than the grace
 * ago becomes a tombstone with the value's timestamp, forgotten under the tombstone rule; one that
 * expired more recently stays as it is (it reads as absent), so that the grace counts from the
 * expiry, as a delete's counts from the delete. A tombstone is dropped only when it is older than
 * {@link StoreOptions#tombstoneGrace}, its timestamp is before {@link StoreOptions#purgeHorizon}
 * (asked once, at the start), and no table outside the compaction and no memtable of the
 * compaction's snapshot can hold a version of its key (one it would otherwise stop shadowing); a
 * table that cannot be read there keeps the tombstone. Shadowed versions are already gone: the input is a {@link MergingIterator}.
 *
 * <p>Also the compaction's progress line (rate, ETA) every 10 seconds; it stops with
 * {@link CompactionCancelledException} once the store is closing, and reads no faster than its
 * {@link Pacer} allows. Used by one compaction, on the compactor thread, which retains the
 * snapshot it consults for as long as it runs; takes no lock.
 */
final class CompactionMerge implements Iterator<Entry> {
    private static final Logger log = LoggerFactory.getLogger(CompactionMerge.class);
    private static final long PROGRESS_NANOS = 10_000_000_000L;

    private final Iterator<Entry> in;
    private final Version v;
    private final List<Table> others;
    private final long totalBytes;
    private final long outNumber;
    private final StoreOptions opt;
    private final Pacer pacer;
    private final long t0 = System.nanoTime();
    /** Values that expired before this instant are past their grace; fixed when the compaction starts. */
    private final long graceHorizon;
    /** Tombstones written before this instant may be forgotten: past their grace and the purge horizon. */
    private final long purgeHorizon;
    private long lastLog = t0;
    private long seenBytes;
    /** Entries read since the clock was last consulted for progress and pacing, and {@link #seenBytes} then. */
    private int sinceClock;
    private long bytesAtClock;
    private Entry next;

    /**
     * @param v          the snapshot the compaction started from (its memtables are consulted)
     * @param others     the snapshot's tables that are not inputs of this compaction
     * @param totalBytes the inputs' size, for the progress line's ETA
     * @param outNumber  the output table's number, for the progress line
     */
    CompactionMerge(Iterator<Entry> in, Version v, List<Table> others, long totalBytes, long outNumber,
                     StoreOptions opt, Pacer pacer) {
        this.in = in;
        this.v = v;
        this.others = others;
        this.totalBytes = totalBytes;
        this.outNumber = outNumber;
        this.opt = opt;
        this.pacer = pacer;
        this.graceHorizon = System.currentTimeMillis() - opt.tombstoneGrace().toMillis();
        this.purgeHorizon = Math.min(graceHorizon, opt.purgeHorizon().getAsLong());
        advance();
    }

    private void advance() {
        next = null;
        while (in.hasNext()) {
            pacer.checkStopping();
            Entry read = in.next();
            seenBytes += TableFormat.ENTRY_HEADER + read.key().length + read.valueLength();
            // Every 64 entries or the pacer's clockBytes, whichever first: a run of large values
            // still checks the clock often.
            if (++sinceClock >= 64 || seenBytes - bytesAtClock >= pacer.clockBytes()) {
                sinceClock = 0;
                bytesAtClock = seenBytes;
                progress();
                pacer.pace(t0, seenBytes);
            }
            Entry e = read.expiry() != 0 && read.expiry() < graceHorizon ? Entry.tombstone(read.key(), read.timestamp()) : read;
            if (e.isTombstone() && opt.timestampMillis().applyAsLong(e.timestamp()) < purgeHorizon && !heldElsewhere(e.key())) {
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
