package dht.storage;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/** The entries of a merged compaction input except those whose key {@code drop} accepts, counted: a purge ({@link Store#purge}). */
final class DroppingIterator implements Iterator<Entry> {
    private final Iterator<Entry> in;
    private final Predicate<byte[]> drop;
    private final AtomicLong dropped;
    private Entry next;

    DroppingIterator(Iterator<Entry> in, Predicate<byte[]> drop, AtomicLong dropped) {
        this.in = in;
        this.drop = drop;
        this.dropped = dropped;
        advance();
    }

    private void advance() {
        next = null;
        while (in.hasNext()) {
            Entry e = in.next();
            if (drop.test(e.key())) {
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
