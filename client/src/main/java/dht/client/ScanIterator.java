package dht.client;

import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The entries of a range scan, in key order, read from the node as they are consumed: only the
 * entry at hand is in memory, whatever the size of the range. Holds a connection until the last
 * entry is read or {@link #close()} is called; use it in try-with-resources.
 *
 * <p>Fails with {@link IncompleteScanException} when the answer ends before its end (the entries
 * returned so far are genuine), {@link DhtTimeoutException} when the node sends nothing for the
 * request timeout. Not thread-safe.
 */
public final class ScanIterator implements Iterator<Entry>, AutoCloseable {
    private final ScanConnection connection;
    private Entry next;
    private boolean finished;

    ScanIterator(ScanConnection connection) {
        this.connection = connection;
    }

    @Override
    public boolean hasNext() {
        if (next != null) return true;
        if (finished) return false;
        try {
            byte[] chunk = connection.next();
            if (chunk == null) {
                close();
                return false;
            }
            next = entry(chunk);
            return true;
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public Entry next() {
        if (!hasNext()) throw new NoSuchElementException();
        Entry e = next;
        next = null;
        return e;
    }

    /** These entries as a sequential stream; closing the stream closes this iterator. */
    public Stream<Entry> stream() {
        Spliterator<Entry> s = Spliterators.spliteratorUnknownSize(this,
                Spliterator.ORDERED | Spliterator.DISTINCT | Spliterator.NONNULL);
        return StreamSupport.stream(s, false).onClose(this::close);
    }

    /** Releases the connection; entries not yet read are not read. Idempotent. */
    @Override
    public void close() {
        finished = true;
        next = null;
        connection.close();
    }

    /**
     * One chunk, {@code key \n value}: the key ends at the first newline, so a key that itself
     * holds a newline cannot be told apart from its value here (the API's framing). A key that
     * starts with one comes back empty, its rest in the value: the split the API documents, and
     * the scan goes on past it.
     */
    private Entry entry(byte[] chunk) {
        int nl = -1;
        for (int i = 0; i < chunk.length; i++) {
            if (chunk[i] == '\n') {
                nl = i;
                break;
            }
        }
        if (nl < 0) {
            throw new DhtException("node " + connection.node() + " sent a scan entry without 'key \\n value' framing",
                    connection.node(), 200, null);
        }
        return new Entry(Arrays.copyOf(chunk, nl), Arrays.copyOfRange(chunk, nl + 1, chunk.length));
    }
}
