package dht.storage;

import java.lang.foreign.MemorySegment;

/**
 * Reads a table ahead of a reader that streams it: the mapping is advised random (each fault reads
 * one page, for point reads), so a scan, a compaction or a check asks for the bytes ahead of it
 * itself, a window at a time ({@link MappingAdvice#willNeed}), and its faults then find them in the
 * page cache. The window starts small, so a short range read costs little, and doubles up to
 * {@link #MAX_WINDOW} while the reader keeps going. Not thread-safe: one per reader.
 */
final class Readahead {
    static final long MIN_WINDOW = 128 << 10;
    static final long MAX_WINDOW = 4 << 20;
    private final MemorySegment seg;
    private long window;
    /** The mapping is asked for up to here. */
    private long advisedTo;

    Readahead(MemorySegment seg, long firstWindow) {
        this.seg = seg;
        this.window = firstWindow;
    }

    /** A new pass from the start of the table: nothing asked for yet. */
    void restart() {
        advisedTo = 0;
    }

    /** The reader is about to read at {@code offset}: asks for the next window once it is half way through this one. */
    void at(long offset) {
        if (offset + window / 2 < advisedTo) return;
        long from = Math.max(offset, advisedTo);
        if (from >= seg.byteSize()) return;
        MappingAdvice.willNeed(seg, from, window);
        advisedTo = from + window;
        window = Math.min(window * 2, MAX_WINDOW);
    }
}
