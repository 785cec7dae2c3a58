package dht.storage;

import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.NoSuchElementException;

/**
 * The entries of one {@link Table} with keys in {@code [from, to)} ({@code null}: unbounded), read
 * a block at a time, lazily (nothing is read before the first {@code hasNext}). Keys are copied;
 * values are copied, or with {@code borrow} are views of the block: of the mapping for a block
 * stored raw (so a large value is never on the heap), of the block's decompressed array otherwise.
 *
 * <p>Invariant: at most one decompressed block is reserved in the budget at a time, the one being
 * read; its reservation goes back when the iterator moves to the next block, reaches its end or is
 * closed. A damaged block, a table whose mapping faults ({@link Table#fault}) or a refused
 * reservation fails the iteration with an {@link UncheckedIOException} (wrapping a
 * {@link CorruptionException} or a {@link ReadBudgetExceededException}), never skips the block.
 */
final class TableIterator implements CloseableIterator<Entry> {
    private final Table table;
    private final MemorySegment fromKey;
    private final MemorySegment toKey;
    private final boolean borrow;
    private final ReadBudget budget;
    private final int blocks;
    private final Readahead readahead;

    private int block;
    private MemorySegment entries;
    private long reserved;
    private long p = -1;
    private long end = -1;
    private Entry next;
    private boolean started;
    private boolean done;

    TableIterator(Table table, byte[] from, byte[] to, boolean borrow, ReadBudget budget, long firstReadahead) {
        this.table = table;
        this.fromKey = from == null ? null : MemorySegment.ofArray(from);
        this.toKey = to == null ? null : MemorySegment.ofArray(to);
        this.borrow = borrow;
        this.budget = budget;
        this.blocks = table.blockCount();
        this.readahead = table.readahead(firstReadahead);
    }

    @Override
    public boolean hasNext() {
        if (!started) {
            started = true;
            checkedAdvance(true);
        }
        return next != null;
    }

    @Override
    public Entry next() {
        if (!hasNext()) throw new NoSuchElementException();
        Entry e = next;
        checkedAdvance(false);
        return e;
    }

    /**
     * {@link #advance}, first finding the block to start from ({@code first}); a table that cannot
     * be read, or whose mapping faults, ends the iteration with its damage. The start is found here
     * rather than at construction, so that a scan opening its sources reads nothing yet.
     */
    private void checkedAdvance(boolean first) {
        try {
            if (first) {
                table.checkReadable();
                block = fromKey == null ? 0 : Math.max(0, table.findBlock(fromKey));
            }
            advance();
        } catch (CorruptionException e) {
            done = true;
            throw new UncheckedIOException(e);
        } catch (InternalError e) {
            done = true;
            next = null;
            letGoOfBlock();
            throw new UncheckedIOException(table.fault(e));
        }
    }

    @Override
    public void close() {
        done = true;
        next = null;
        letGoOfBlock();
    }

    private void advance() {
        next = null;
        while (!done) {
            if (p < 0 || p >= end) {
                letGoOfBlock();
                if (block >= blocks) {
                    done = true;
                    return;
                }
                readahead.at(table.blockOffset(block));
                try {
                    entries = table.blockEntries(block, budget);
                } catch (CorruptionException | ReadBudgetExceededException e) {
                    done = true;
                    throw new UncheckedIOException(e);
                }
                reserved = entries.isNative() ? 0 : entries.byteSize();
                p = 0;
                end = entries.byteSize();
                block++;
            }
            int kl = entries.get(Bytes.INT, p);
            int vl = entries.get(Bytes.INT, p + 4);
            long entryEnd = p + TableFormat.ENTRY_HEADER + kl + Math.max(vl, 0);
            if (kl < 0 || vl < -1 || entryEnd > end) {
                done = true;
                CorruptionException e = table.corrupt(table.blockOffset(block - 1) + p, "malformed entry");
                letGoOfBlock();
                throw new UncheckedIOException(e);
            }
            long kp = p + TableFormat.ENTRY_HEADER;
            long at = p;
            p = entryEnd;
            if (fromKey != null && Bytes.compare(fromKey, entries, kp, kl) > 0) continue;
            if (toKey != null && Bytes.compare(toKey, entries, kp, kl) <= 0) {
                done = true;
                letGoOfBlock();
                return;
            }
            next = table.decode(entries, at, kl, vl, borrow);
            return;
        }
    }

    /** Gives back the reservation of the block read so far, if it had one. */
    private void letGoOfBlock() {
        if (reserved > 0) budget.release((int) reserved);
        reserved = 0;
        entries = null;
        p = -1;
        end = -1;
    }
}
