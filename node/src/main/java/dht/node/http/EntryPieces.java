package dht.node.http;

import dht.storage.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.lang.foreign.MemorySegment;

/**
 * One entry too large for a scan's batch, cut into pieces of at most {@link #PIECE} value bytes
 * that the scan writes one at a time, each once the connection can take it: a value of any size
 * then takes about a piece of the node's memory on its way out, read in place from where the
 * store keeps it (a table's mapping, a memtable's arena), never copied whole.
 *
 * <p>With {@link EntryFormat#chunkPerEntry()} the entry must still be one HTTP chunk: its pieces
 * carry the chunk's framing themselves and are written below the HTTP encoder ({@link #raw()}).
 * The entry's value must stay valid until the last piece is taken.
 */
final class EntryPieces {
    /** Entries larger than this are written in pieces; also the most value bytes in one piece. */
    static final int PIECE = 64 * 1024;

    private final EntryFormat format;
    private final Entry entry;
    private final MemorySegment value;
    private long written;
    private boolean started;

    EntryPieces(EntryFormat format, Entry entry) {
        this.format = format;
        this.entry = entry;
        this.value = entry.isTombstone() ? MemorySegment.NULL : entry.valueSegment();
    }

    /** Whether pieces are left. */
    boolean hasNext() {
        return !started || written < value.byteSize();
    }

    /** Whether the pieces bypass the HTTP encoder (they frame their chunk themselves). */
    boolean raw() {
        return format.chunkPerEntry();
    }

    /** The next piece, in a new buffer the caller owns. */
    ByteBuf next(ByteBufAllocator alloc) {
        int n = (int) Math.min(PIECE, value.byteSize() - written);
        ByteBuf b = alloc.buffer(n + (started ? 2 : entry.key().length + 48));
        try {
            if (!started) {
                format.writeHead(entry, b);
                started = true;
            }
            if (n > 0) b.writeBytes(value.asSlice(written, n).asByteBuffer());
            written += n;
            if (written == value.byteSize()) format.writeTail(b);
            return b;
        } catch (RuntimeException | Error e) {
            b.release();
            throw e;
        }
    }
}
