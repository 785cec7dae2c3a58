package dht.storage;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * Merges sorted sources into one sorted stream with one entry per key: the version that
 * {@link Entry#supersedes} all others. Source order does not matter (last write wins by timestamp,
 * not by which file it came from), so tables can be merged in any combination.
 *
 * <p>Only keys and timestamps are compared (and, on a tie of timestamps, the values in place), so
 * with sources that borrow their values ({@link TableIterator}) the merge copies no value: the
 * versions that lose are never materialised. Closing it closes every source that is a
 * {@link CloseableIterator}, giving back what they hold.
 */
final class MergingIterator implements CloseableIterator<Entry> {
    private static final class Source {
        final Iterator<Entry> it;
        Entry head;

        Source(Iterator<Entry> it) {
            this.it = it;
            this.head = it.next();
        }
    }

    private final PriorityQueue<Source> heap =
            new PriorityQueue<>((a, b) -> Bytes.ORDER.compare(a.head.key(), b.head.key()));

    private final List<Iterator<Entry>> all;

    /** Reads the first entry of each source; if that fails, the sources are closed before it throws. */
    MergingIterator(List<Iterator<Entry>> sources) {
        this.all = List.copyOf(sources);
        try {
            for (Iterator<Entry> it : sources) if (it.hasNext()) heap.add(new Source(it));
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    @Override
    public void close() {
        heap.clear();
        for (Iterator<Entry> it : all) {
            if (it instanceof CloseableIterator<Entry> c) c.close();
        }
    }

    @Override
    public boolean hasNext() { return !heap.isEmpty(); }

    @Override
    public Entry next() {
        if (heap.isEmpty()) throw new NoSuchElementException();
        Source s = heap.poll();
        Entry best = s.head;
        advance(s);
        while (!heap.isEmpty() && Bytes.ORDER.compare(heap.peek().head.key(), best.key()) == 0) {
            Source o = heap.poll();
            if (o.head.supersedes(best)) best = o.head;
            advance(o);
        }
        return best;
    }

    private void advance(Source s) {
        if (s.it.hasNext()) {
            s.head = s.it.next();
            heap.add(s);
        }
    }
}
