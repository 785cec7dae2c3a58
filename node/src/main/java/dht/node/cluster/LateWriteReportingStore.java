package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.ForwardingStore;
import dht.storage.Stamp;
import dht.storage.Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A node's store as every path writes it (coordinator, replica calls, hints, read repair,
 * anti-entropy): tells the {@link PurgeHorizon} of each write that reaches it late, around the
 * write, so that a compaction starting meanwhile already keeps what it carries. On-time writes cost
 * one clock read per call. Everything else passes through.
 *
 * <p>A late tombstone that would not replace the version this node stores for its key (an older
 * one, or a tombstone of the same timestamp) is dropped, neither written nor told: it would change
 * nothing, and a report would hold the horizon back for nothing. Anti-entropy hands such ones over
 * each round (a replica holding the tombstone that shadows an older value of a newer version it is
 * not a replica of sends it to that version's replicas, docs/cluster.md): reported, they kept every
 * node from forgetting tombstones for good. Values could be dropped as safely, but a late value is
 * usually one a node lacks (a join's stream, a hint), and the check costs a point read: only
 * tombstones pay it. A key whose version cannot be read (a damaged table) takes the write as before.
 */
public final class LateWriteReportingStore extends ForwardingStore {
    private final PurgeHorizon horizon;

    public LateWriteReportingStore(Store inner, PurgeHorizon horizon) {
        super(inner);
        this.horizon = horizon;
    }

    /** The store below the reports, for a node's writes while it is alone: no peer to be late for ({@link LoneNodeStore}). */
    Store unreported() {
        return inner;
    }

    /** The oldest timestamp (ms) among {@code entries} that arrive late, or {@code Long.MAX_VALUE}. */
    private long oldestLate(List<Entry> entries) {
        long now = horizon.nowMillis();
        long oldest = Long.MAX_VALUE;
        for (Entry e : entries) {
            long ts = HybridLogicalClock.toEpochMillis(e.timestamp());
            if (horizon.isLate(ts, now)) oldest = Math.min(oldest, ts);
        }
        return oldest;
    }

    private long oldestLate(long timestamp) {
        long ts = HybridLogicalClock.toEpochMillis(timestamp);
        return horizon.isLate(ts, horizon.nowMillis()) ? ts : Long.MAX_VALUE;
    }

    @Override
    public void put(byte[] key, byte[] value, long timestamp) throws IOException {
        long late = oldestLate(timestamp);
        if (late == Long.MAX_VALUE) {
            inner.put(key, value, timestamp);
            return;
        }
        horizon.lateWriteStarting(late);
        try {
            inner.put(key, value, timestamp);
        } finally {
            horizon.lateWriteEnded(late);
        }
    }

    /** Whether this node stores a version of {@code key} that a tombstone at {@code timestamp} would not replace. */
    private boolean holdsNewer(byte[] key, long timestamp) {
        Stamp s;
        try {
            s = inner.storedStamp(key);
        } catch (IOException e) {
            return false; // the write needs no read: it goes on, told, as if this one were not made
        }
        return s != null && (s.timestamp() > timestamp || s.timestamp() == timestamp && s.tombstone());
    }

    @Override
    public void delete(byte[] key, long timestamp) throws IOException {
        long late = oldestLate(timestamp);
        if (late == Long.MAX_VALUE) {
            inner.delete(key, timestamp);
            return;
        }
        if (holdsNewer(key, timestamp)) return;
        horizon.lateWriteStarting(late);
        try {
            inner.delete(key, timestamp);
        } finally {
            horizon.lateWriteEnded(late);
        }
    }

    /** An on-time write passes through; a late one declines, to be reported by {@link #write}. */
    @Override
    public boolean tryWrite(List<Entry> entries) throws IOException {
        return oldestLate(entries) == Long.MAX_VALUE && inner.tryWrite(entries);
    }

    @Override
    public void write(List<Entry> entries) throws IOException {
        if (oldestLate(entries) == Long.MAX_VALUE) {
            inner.write(entries);
            return;
        }
        // One pass at one instant: keeps each entry but the late tombstones a stored version shadows,
        // and finds the oldest late one kept.
        long now = horizon.nowMillis();
        long late = Long.MAX_VALUE;
        List<Entry> kept = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            long ts = HybridLogicalClock.toEpochMillis(e.timestamp());
            if (horizon.isLate(ts, now)) {
                if (e.isTombstone() && holdsNewer(e.key(), e.timestamp())) continue;
                late = Math.min(late, ts);
            }
            kept.add(e);
        }
        if (late == Long.MAX_VALUE) { // none late is left: the newer versions already stored shadow them all
            if (!kept.isEmpty()) inner.write(kept);
            return;
        }
        horizon.lateWriteStarting(late);
        try {
            inner.write(kept);
        } finally {
            horizon.lateWriteEnded(late);
        }
    }
}
