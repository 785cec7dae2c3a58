package dht.storage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Off-heap bump allocator of one memtable: 8-byte-aligned blocks carved from chunks of native
 * memory, addressed by a {@code long} (chunk index in the high 32 bits, offset in the low 32), freed
 * all at once by {@link #close}. Keeping a memtable's keys and values here rather than in heap
 * arrays is what keeps them out of the garbage collector's way: a young collection used to copy
 * every live memtable entry, 10-19 ms pauses at 35,000 PUT/s (docs/benchmarks.md).
 *
 * <p>Invariants: only one thread allocates at a time (the memtable's writer); any thread may
 * {@link #segment resolve} an address it obtained through a happens-before edge from the write
 * that published it (the chunk table is replaced, never modified, and published through a volatile
 * field before any address inside the new chunk can be); a block never moves; nothing is freed
 * before {@link #close}, and nothing may be touched after it.
 */
final class MemtableArena implements AutoCloseable {
    static final int MAX_CHUNK = 1 << 20;
    static final int MIN_CHUNK = 64 << 10;

    private final Arena arena = Arena.ofShared();
    private final int chunk;
    /** Blocks larger than this get a chunk of their own instead of wasting the rest of one. */
    private final int large;
    private volatile MemorySegment[] chunks = new MemorySegment[0];
    private int position; // in the last small chunk
    private int smallChunk = -1;
    /** Bytes handed out, alignment padding included. */
    private volatile long used;
    private volatile long reserved;

    /** An arena that takes native memory in chunks of {@code chunk} bytes. */
    MemtableArena(int chunk) {
        if (chunk < 64 || (chunk & 7) != 0) throw new IllegalArgumentException("chunk of " + chunk + " bytes");
        this.chunk = chunk;
        this.large = chunk / 4;
        this.position = chunk; // forces a chunk on the first allocation
    }

    /** A chunk size for a memtable of about {@code memtableBytes}: a quarter of it, within [64 KiB, 1 MiB]. */
    static int chunkFor(long memtableBytes) {
        return (int) Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, Long.highestOneBit(Math.max(1, memtableBytes / 4))));
    }

    /** A zeroed block of {@code size} bytes, 8-byte aligned; returns its address. */
    long allocate(int size) {
        if (size < 0) throw new IllegalArgumentException("negative size " + size);
        int aligned = (size + 7) & ~7;
        if (aligned > large) {
            int index = addChunk(aligned);
            used += aligned;
            return (long) index << 32;
        }
        if (position + aligned > chunk) {
            smallChunk = addChunk(chunk);
            position = 0;
        }
        long address = (long) smallChunk << 32 | position;
        position += aligned;
        used += aligned;
        return address;
    }

    private int addChunk(long size) {
        MemorySegment[] old = chunks;
        MemorySegment[] grown = Arrays.copyOf(old, old.length + 1);
        grown[old.length] = arena.allocate(size, 8);
        reserved += size;
        chunks = grown;
        return old.length;
    }

    /** The chunk holding {@code address}; the block starts at {@link #offset(long)} in it. */
    MemorySegment segment(long address) {
        return chunks[(int) (address >>> 32)];
    }

    static long offset(long address) {
        return address & 0xffffffffL;
    }

    /** Bytes handed out so far. */
    long used() { return used; }

    /** Native memory taken from the system so far. */
    long reserved() { return reserved; }

    @Override
    public void close() {
        arena.close();
    }
}
