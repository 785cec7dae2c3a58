package dht.storage;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The entries of a merged compaction input except those {@code drop} accepts, counted: a purge
 * ({@link Store#purge}). The input has one entry per key, its newest version ({@link MergingIterator}).
 */
final class DroppingIterator implements Iterator<Entry> {
    private final Iterator<Entry> in;
    private final Predicate<Entry> drop;
    private final AtomicLong dropped;
    private Entry next;

    DroppingIterator(Iterator<Entry> in, Predicate<Entry> drop, AtomicLong dropped) {
        this.in = in;
        this.drop = drop;
        this.dropped = dropped;
        advance();
    }

    private void advance() {
        next = null;
        while (in.hasNext()) {
            Entry e = in.next();
            if (drop.test(e)) {
                dropped.incrementAndGet();
                continue;
            }
            next = e;
            return;
        }
    }

    @Override
    public boolean hasNext() {
        return next != null;
    }

    @Override
    public Entry next() {
        if (next == null) throw new NoSuchElementException();
        Entry e = next;
        advance();
        return e;
    }
}
