package dht.node.http;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import java.util.NoSuchElementException;
import java.util.function.Predicate;

/**
 * The entries of a scan whose keys {@code selected} accepts, in the scan's order; the others are
 * skipped before anything of them is sent. Closing it closes the scan.
 */
final class SelectedEntries implements CloseableIterator<Entry> {
    private final CloseableIterator<Entry> scan;
    private final Predicate<byte[]> selected;
    private Entry next;

    SelectedEntries(CloseableIterator<Entry> scan, Predicate<byte[]> selected) {
        this.scan = scan;
        this.selected = selected;
    }

    @Override
    public boolean hasNext() {
        while (next == null && scan.hasNext()) {
            Entry e = scan.next();
            if (selected.test(e.key())) next = e;
        }
        return next != null;
    }

    @Override
    public Entry next() {
        if (!hasNext()) throw new NoSuchElementException();
        Entry e = next;
        next = null;
        return e;
    }

    @Override
    public void close() {
        scan.close();
    }
}
