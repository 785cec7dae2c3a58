package dht.node.cluster;

import dht.storage.Entry;
import java.util.Arrays;
import java.util.NoSuchElementException;

/**
 * A peer's part of a cluster scan with a limit, read a page at a time. Each page asks the peer for
 * at most {@code page} values ({@code limit=page} on its internal stream: records that are not
 * tombstones count, tombstones come along free). The coordinator needs N live keys, and a peer's N
 * values may include keys deleted (or overwritten) on other nodes, so one page is not always
 * enough: a page that delivered exactly {@code page} values may have been cut by its limit, and
 * when the merge asks for more, the next page is opened just past the last key read, twice as
 * large. A page that ended with fewer values reached the end of the range. A peer that ignores the
 * limit (an older node) sends its whole range in the first page, more values than asked: read to
 * its end, it is the end.
 *
 * <p>Invariant: the records handed out are exactly those an unlimited stream of the range would
 * hand out, in order, for as far as the merge reads. A page that fails to open or breaks throws
 * {@link ScanSourceException} from {@code hasNext}, as a broken stream does.
 */
final class PagedScanSource implements ScanSource {
    /** Opens one page: {@code peer}'s stream of {@code [start, end)} with at most {@code limit} values. */
    interface PageOpener {
        ScanSource open(String peer, byte[] start, byte[] end, int limit);
    }

    private final String peer;
    private final byte[] end;
    private final PageOpener opener;
    private ScanSource current;
    private int page;
    private long values; // values read from the current page
    private byte[] lastKey;
    private boolean done;

    /** Opens the first page at once (its failure to open throws, as opening a stream does). */
    PagedScanSource(String peer, byte[] start, byte[] end, int limit, PageOpener opener) {
        if (limit < 1) throw new IllegalArgumentException("page limit " + limit);
        this.peer = peer;
        this.end = end;
        this.opener = opener;
        this.page = limit;
        this.current = opener.open(peer, start, end, limit);
    }

    @Override
    public String node() {
        return peer;
    }

    @Override
    public boolean hasNext() {
        while (!done) {
            if (current.hasNext()) return true;
            // The page ended cleanly: the range's end, unless its limit may have cut it.
            current.close();
            if (values != page) {
                done = true;
                return false;
            }
            byte[] next = successor(lastKey);
            if (end != null && Arrays.compareUnsigned(next, end) >= 0) {
                done = true;
                return false;
            }
            page = (int) Math.min(2L * page, Integer.MAX_VALUE);
            values = 0;
            current = opener.open(peer, next, end, page);
        }
        return false;
    }

    @Override
    public Entry next() {
        if (!hasNext()) throw new NoSuchElementException();
        Entry e = current.next();
        lastKey = e.key();
        if (!e.isTombstone()) values++;
        return e;
    }

    /** The least key greater than {@code key} in unsigned byte order: {@code key} followed by a zero byte. */
    static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    @Override
    public void close() {
        done = true;
        current.close();
    }
}
