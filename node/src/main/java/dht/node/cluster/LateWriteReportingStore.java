package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.ForwardingStore;
import dht.storage.Store;
import java.io.IOException;
import java.util.List;

/**
 * A node's store as every path writes it (coordinator, replica calls, hints, read repair,
 * anti-entropy): tells the {@link PurgeHorizon} of each write that reaches it late, around the
 * write, so that a compaction starting meanwhile already keeps what it carries. On-time writes cost
 * one clock read per call. Everything else passes through.
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

    @Override
    public void delete(byte[] key, long timestamp) throws IOException {
        long late = oldestLate(timestamp);
        if (late == Long.MAX_VALUE) {
            inner.delete(key, timestamp);
            return;
        }
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
        long late = oldestLate(entries);
        if (late == Long.MAX_VALUE) {
            inner.write(entries);
            return;
        }
        horizon.lateWriteStarting(late);
        try {
            inner.write(entries);
        } finally {
            horizon.lateWriteEnded(late);
        }
    }
}
