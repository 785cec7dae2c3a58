package dht.node.cluster;

import dht.node.text.Plural;
import dht.storage.CloseableIterator;
import dht.storage.Entry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * K-way merge of the nodes' scan sources by key (unsigned bytes), yielding the newest version of
 * each key by {@link Entry#supersedes}, tombstones included.
 *
 * <p>Invariant ("ack" of a cluster scan): every key yielded lies in a part of the range that at
 * least {@code ack} nodes covered completely: a node counts for a key if its source reached or
 * passed that key without failing. With the default {@code from = N} every node is a replica of
 * every key, so this is "at least ack replicas of the key reported on it". A source that fails is
 * noticed before any key past its last record is yielded (its head is needed to pick the next
 * key), so when fewer than {@code ack} sources remain the scan throws
 * {@link ClusterScanner.IncompleteScanException} instead of yielding anything unproven.
 *
 * <p>A version stamped more than the max clock offset ahead of this node's clock is left out, as a
 * point read leaves out the answer that carries one (docs/cluster.md, "The max clock offset"):
 * stored by a node whose clock jumped ahead, it would otherwise win over every later write and
 * delete of its key in scans while point reads refuse it. Its source still counts for the key.
 */
final class MergingScan implements CloseableIterator<Entry> {
    private static final Logger log = LoggerFactory.getLogger(MergingScan.class);

    private final List<ScanSource> sources;
    private final Entry[] heads;
    private final boolean[] exhausted;
    private final boolean[] failed;
    private final int ack;
    private final int total;
    /** Null: every version is taken (no clock to judge by). */
    private final HybridLogicalClock clock;
    private int alive;
    private Entry next;
    private boolean closed;

    /** {@code sources} may contain nulls for nodes whose stream could not be opened (counted as failed). */
    MergingScan(List<ScanSource> sources, int ack, HybridLogicalClock clock) {
        this.clock = clock;
        this.sources = new ArrayList<>(sources);
        this.total = sources.size();
        this.heads = new Entry[total];
        this.exhausted = new boolean[total];
        this.failed = new boolean[total];
        this.ack = ack;
        for (int i = 0; i < total; i++) {
            if (sources.get(i) == null) failed[i] = true;
            else alive++;
        }
    }

    @Override
    public boolean hasNext() {
        if (next == null && !closed) next = advance();
        return next != null;
    }

    @Override
    public Entry next() {
        if (!hasNext()) throw new NoSuchElementException();
        Entry e = next;
        next = null;
        return e;
    }

    private Entry advance() {
        while (true) {
            fillHeads();
            int min = -1;
            for (int i = 0; i < total; i++) {
                if (heads[i] != null && (min < 0 || Arrays.compareUnsigned(heads[i].key(), heads[min].key()) < 0)) min = i;
            }
            if (min < 0) return null;
            byte[] key = heads[min].key();
            Entry newest = null;
            for (int i = 0; i < total; i++) {
                if (heads[i] != null && Arrays.equals(heads[i].key(), key)) {
                    Entry h = heads[i];
                    heads[i] = null;
                    if (clock != null && !clock.acceptable(h.timestamp())) {
                        clock.observe(h.timestamp(), sources.get(i).node()); // refused: counted and logged
                    } else if (h.supersedes(newest)) {
                        newest = h;
                    }
                }
            }
            if (newest != null) return newest;
        }
    }

    /** Reads the next record of every source whose head was taken; a source that fails is dropped. */
    private void fillHeads() {
        checkEnough();
        for (int i = 0; i < total; i++) {
            if (failed[i] || exhausted[i] || heads[i] != null) continue;
            ScanSource s = sources.get(i);
            try {
                if (s.hasNext()) heads[i] = s.next();
                else exhausted[i] = true;
            } catch (ScanSource.ScanSourceException e) {
                failed[i] = true;
                alive--;
                log.warn("cluster scan: node {} failed ({} of {} sources left, ack {}): {}",
                        s.node(), alive, total, ack, e.getMessage());
                closeQuietly(s);
                checkEnough();
            }
        }
    }

    private void checkEnough() {
        if (alive < ack) {
            throw new ClusterScanner.IncompleteScanException(
                    "only " + alive + " of " + Plural.of(total, "node") + " can still answer the scan, ack " + ack);
        }
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        for (ScanSource s : sources) {
            if (s != null) closeQuietly(s);
        }
    }

    private static void closeQuietly(ScanSource s) {
        try {
            s.close();
        } catch (RuntimeException e) {
            log.warn("cluster scan: closing the source of {} failed: {}", s.node(), e.toString());
        }
    }
}
