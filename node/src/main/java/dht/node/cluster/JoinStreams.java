package dht.node.cluster;

import dht.storage.StoreStats;
import dht.storage.CloseableIterator;
import dht.storage.Entry;
import java.io.IOException;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The join streams this member sends (the internal range stream with {@code joiner=URL&version=V}):
 * which keys each holds ({@link JoinStreamKeys}), and what they count toward this node's
 * {@code rebalance} status. The node shows {@code rebalancing} from a stream's open to its close,
 * which the server side of a scan does however the stream ends (complete, failed, or its reader
 * gone or stalled past the scan's timeout), so an abandoned stream does not keep it shown.
 */
public final class JoinStreams {
    private final MembershipState membership;
    private final WritesInFlight writes;
    private final RebalanceCounts counts;
    private final Supplier<StoreStats> stored;

    JoinStreams(MembershipState membership, WritesInFlight writes, RebalanceCounts counts, Supplier<StoreStats> stored) {
        this.membership = membership;
        this.writes = writes;
        this.counts = counts;
        this.stored = stored;
    }

    /**
     * The keys this node sends {@code joiner}, asked for under membership {@code version}, in the
     * stead of {@code instead} when not null ({@link JoinStreamKeys#forRequest}).
     */
    public JoinStreamKeys keys(String joiner, long version, String instead) throws MembershipChangeException {
        return JoinStreamKeys.forRequest(membership, joiner, version, instead);
    }

    /** How a join stream reads this node's store. */
    @FunctionalInterface
    public interface Scan {
        CloseableIterator<Entry> open() throws IOException;
    }

    /**
     * The entries of the scan {@code open} makes that {@code keys} sends, counted as they go: every
     * entry read toward {@code bytesScanned} and {@code entriesScanned} (against the store's, for the ETA), those sent
     * toward {@code keysMoved} and {@code bytesMoved}. Closing it closes the scan and ends its
     * count. The scan opens once the writes this node accepted under an earlier version are in
     * its store ({@link WritesInFlight}), so that none lands behind it.
     */
    public CloseableIterator<Entry> send(Scan open, JoinStreamKeys keys) throws IOException {
        writes.awaitBeforeMoving("the join stream to " + keys.joiner());
        CloseableIterator<Entry> scan = open.open();
        counts.active.incrementAndGet();
        counts.begin(keys.version(), stored.get());
        return new Sending(scan, keys);
    }

    private final class Sending implements CloseableIterator<Entry> {
        private final CloseableIterator<Entry> scan;
        private final JoinStreamKeys keys;
        private final AtomicBoolean closed = new AtomicBoolean();
        private Entry next;

        Sending(CloseableIterator<Entry> scan, JoinStreamKeys keys) {
            this.scan = scan;
            this.keys = keys;
        }

        @Override
        public boolean hasNext() {
            while (next == null && scan.hasNext()) {
                Entry e = scan.next();
                counts.scanned(RebalanceCounts.bytesOf(e));
                if (keys.sends(e)) next = e;
            }
            return next != null;
        }

        @Override
        public Entry next() {
            if (!hasNext()) throw new NoSuchElementException();
            Entry e = next;
            next = null;
            counts.keysMoved.incrementAndGet();
            counts.bytesMoved.addAndGet(RebalanceCounts.bytesOf(e));
            return e;
        }

        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) return;
            try {
                scan.close();
            } finally {
                counts.active.decrementAndGet();
            }
        }
    }
}
