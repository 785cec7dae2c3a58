package dht.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One immutable sorted table, read through an FFM mapping of the whole file (off-heap: nothing but
 * this small object is on the heap). The footer, stats, index and bloom filter are checked once at open
 * ({@link TableRegions}; a damaged bloom filter or stats region costs only speed: the table is read without them; a damaged
 * footer or index makes open fail, and the store salvages the data blocks: {@link TableSalvage});
 * each data block is checked against its CRC every time it is read, so damaged bytes are never
 * decoded into a value, nor handed to a decompressor. A block stored raw is read in place; a
 * compressed one ({@link DataBlock}) is decompressed for each read: by a scan or compaction into an
 * array of its own, which the entries it reads may borrow, by a point read into an array its
 * thread reuses, as nothing a point read returns borrows from it.
 *
 * <p>A read whose mapping faults (the file truncated under the store, a page the disk cannot read:
 * an {@link InternalError} in Java) reports the table damaged, once, and none reads it again
 * ({@link DamageLog#fault}): the index sits at the end of the file, so a truncation is met there,
 * before any data block.
 *
 * <p>Lifetime: reference counted by the {@link Version}s that list it. The mapping is released
 * (and the file deleted, if compaction made it obsolete) only when the last version lets go, so an
 * open scan keeps the tables it reads.
 */
final class Table {
    private static final Logger log = LoggerFactory.getLogger(Table.class);
    /**
     * Each platform thread's array for the blocks its point reads decompress. Invariant: no entry
     * or stamp a point read returns refers to it (keys and values are copied), and a thread makes
     * one point read at a time. Without it a GET allocated a block (about 4 KiB) per table it
     * looked in, over half of a node's allocation per GET (docs/benchmarks.md).
     */
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[0]);
    /** A block of more raw bytes than this gets an array of its own: a thread keeps no larger one. */
    static final int SCRATCH_MAX = 64 << 10;

    final long number;
    final Path path;
    private final StorageFiles files;
    private final Arena arena;
    private final MemorySegment seg;
    private final long indexOffset;
    private final int blocks;
    /** Where the bloom filter starts; -1 when it failed its checksum and every read looks inside. */
    private final long bloomOffset;
    final long entryCount;
    final long sizeBytes;
    /**
     * No entry in this table has a greater timestamp, so a point read that already holds a newer
     * version can skip it. {@link Long#MAX_VALUE} when the stats region failed its checksum.
     */
    final long maxTimestamp;
    private final AtomicInteger refs = new AtomicInteger();
    private volatile boolean obsolete;
    /** The stats region failed its checksum at open: the table is read without its greatest timestamp. */
    final boolean statsDamaged;
    /** For {@link #checkBlock} and {@link #verifyBlock}, which their callers run over every block in order. */
    private final Readahead blockPass;
    /** Whether all the table, and its index and filter, were in the page cache when last checked (ResidencyWatch). */
    final Residency residency, metadata;
    /** {@link #blockBytes} of the largest block, once {@link ResidencyWatch} measured it; -1 before. */
    volatile int largestBlock = -1;
    /** Set when a data block failed its checksum: compaction leaves this table alone. */
    volatile boolean damaged;
    private final DamageLog damage;

    private Table(long number, Path path, StorageFiles files, Arena arena, MemorySegment seg, long indexOffset,
                  int blocks, long bloomOffset, long entryCount, long maxTimestamp, boolean statsDamaged,
                  StorageErrors errors) {
        this.number = number;
        this.path = path;
        this.files = files;
        this.arena = arena;
        this.seg = seg;
        this.indexOffset = indexOffset;
        this.blocks = blocks;
        this.bloomOffset = bloomOffset;
        this.entryCount = entryCount;
        this.maxTimestamp = maxTimestamp;
        this.statsDamaged = statsDamaged;
        this.sizeBytes = seg.byteSize();
        this.blockPass = new Readahead(seg, Readahead.MAX_WINDOW);
        this.residency = new Residency(seg);
        this.metadata = new Residency(seg.asSlice(indexOffset));
        this.damage = new DamageLog(path, files, sizeBytes, errors);
    }


    static Table open(StorageFiles files, Path path, long number) throws IOException {
        return open(files, path, number, new StorageErrors());
    }

    /** Opens the table {@code path}; the damage its reads find is counted in {@code errors}, the store's. */
    static Table open(StorageFiles files, Path path, long number, StorageErrors errors) throws IOException {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment seg = files.map(path, arena);
            MappingAdvice.random(seg); // point reads fault one page each; streaming readers use Readahead
            TableRegions r = TableRegions.read(path, seg);
            return new Table(number, path, files, arena, seg, r.indexOffset(), r.blocks(), r.bloomOffset(), r.entryCount(),
                    r.maxTimestamp(), r.statsDamaged(), errors);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    // ---- reference counting ----

    void retain() { refs.incrementAndGet(); }

    void release() {
        if (refs.decrementAndGet() == 0) {
            arena.close();
            if (obsolete) {
                try {
                    files.delete(path);
                } catch (IOException e) {
                    log.warn("could not delete obsolete table {}: {}", path, e.toString());
                }
            }
        }
    }

    /** Compaction replaced this table in the manifest: delete the file once the last reader is gone. */
    void markObsolete() { obsolete = true; }

    private long indexEntry(int i) {
        return indexOffset + (seg.get(Bytes.INT, indexOffset + 4 + 4L * i) & 0xffffffffL);
    }

    private int compareFirstKey(int i, MemorySegment key) {
        long e = indexEntry(i);
        int kl = seg.get(Bytes.INT, e);
        return -Bytes.compare(key, seg, e + 4, kl);
    }

    /** A read-ahead over this table's mapping for one streaming reader, asking {@code firstWindow} bytes first. */
    Readahead readahead(long firstWindow) {
        return new Readahead(seg, firstWindow);
    }

    long blockOffset(int i) {
        long e = indexEntry(i);
        return seg.get(Bytes.LONG, e + 4 + seg.get(Bytes.INT, e));
    }

    private int blockLen(int i) {
        long e = indexEntry(i);
        return seg.get(Bytes.INT, e + 12 + seg.get(Bytes.INT, e));
    }

    /** The last block whose first key is {@code <= key}, or -1. */
    int findBlock(MemorySegment key) {
        int lo = 0, hi = blocks - 1, ans = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (compareFirstKey(mid, key) <= 0) {
                ans = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return ans;
    }

    /**
     * Verifies block {@code i} and returns its offset. On every read, not only the first: the table
     * is mapped, so its bytes are the page cache's, and a page dropped and read again from a disk
     * that has rotted since changes under an open table. Checked once and trusted after, such a
     * block would be served damaged and compacted into a new table under a valid checksum, never to
     * be detected again. What the check costs: docs/storage-format.md.
     */
    private long checkedBlock(int i) throws CorruptionException {
        long off = blockOffset(i);
        int len = blockLen(i);
        if (off < 0 || len <= 0 || off + len + 4 > indexOffset) {
            throw corrupt(off, "block " + i + " index entry out of bounds");
        }
        if (Bytes.crc(seg, off, len) != seg.get(Bytes.INT, off + len)) {
            throw corrupt(off, "block " + i + " checksum mismatch");
        }
        return off;
    }

    /**
     * The entries of block {@code i}, checked, for a point read that copies what it keeps before
     * its next one: a slice of the mapping when the block is stored raw, else the block
     * decompressed into this thread's {@link #SCRATCH} (a new array when the block is larger than
     * {@link #SCRATCH_MAX} or the thread is virtual, as each virtual thread would keep its own).
     */
    private MemorySegment pointReadEntries(int i) throws CorruptionException {
        if (ReadsWithoutWaiting.active()) checkWithoutWaiting(i);
        long off = checkedBlock(i);
        int len = blockLen(i);
        if (!DataBlock.isCompressed(seg, off)) return seg.asSlice(off, len);
        int raw = rawLength(off, len);
        byte[] scratch = raw <= SCRATCH_MAX && !Thread.currentThread().isVirtual() ? SCRATCH.get() : null;
        byte[] out = decompress(i, off, len, scratch);
        if (scratch != null && out != scratch) SCRATCH.set(out);
        return MemorySegment.ofArray(out).asSlice(0, raw);
    }

    /** In ReadsWithoutWaiting's scope: WouldWait if block i is large, or out of the page cache (asked unless all the table is in). */
    private void checkWithoutWaiting(int i) {
        long off = blockOffset(i);
        int len = blockLen(i);
        if (off < 0 || len <= 0 || off + len + 4 > indexOffset) return; // checkedBlock reports it
        if (!residency.resident() && seg.isMapped() && !seg.asSlice(off, len + 4L).isLoaded()
                || blockBytes(i) > ResidencyWatch.INLINE_BYTES_MAX) throw WouldWaitException.INSTANCE;
    }

    /**
     * The entries of block {@code i}, checked: a slice of the mapping when the block is stored raw
     * (nothing copied), else the block decompressed into a new array, which the entries read from
     * it may borrow from for as long as they live.
     */
    private MemorySegment blockEntries(int i) throws CorruptionException {
        try {
            return blockEntries(i, ReadBudget.UNLIMITED);
        } catch (ReadBudgetExceededException e) {
            throw new AssertionError("an unlimited budget refused a block", e);
        }
    }

    /**
     * The same, with the bytes of a compressed block reserved in {@code budget} before it is
     * decompressed: the caller owns the reservation of a heap segment returned
     * ({@code !isNative()}, its {@code byteSize()} bytes); nothing is reserved for a raw block, or
     * when this throws.
     */
    MemorySegment blockEntries(int i, ReadBudget budget) throws CorruptionException, ReadBudgetExceededException {
        long off = checkedBlock(i);
        int len = blockLen(i);
        if (!DataBlock.isCompressed(seg, off)) return seg.asSlice(off, len);
        int raw = rawLength(off, len);
        if (!budget.tryReserve(raw)) throw new ReadBudgetExceededException(raw);
        try {
            return MemorySegment.ofArray(decompress(i, off, len, null));
        } catch (RuntimeException | Error | CorruptionException e) {
            budget.release(raw);
            throw e;
        }
    }

    /** What a point read of block {@code i} checksums and decompresses: its stored or raw length, the greater. */
    int blockBytes(int i) {
        long off = blockOffset(i);
        int len = blockLen(i);
        return DataBlock.isCompressed(seg, off) ? Math.max(len, rawLength(off, len)) : len;
    }

    /** The raw length a compressed block's header states (0 if it has no whole header: decompress refuses it). */
    private int rawLength(long off, int len) {
        return len >= DataBlock.COMPRESSED_HEADER ? Math.max(0, DataBlock.rawLength(seg, off)) : 0;
    }

    /** {@link DataBlock#decompress} of block {@code i}, a block that does not decompress reported as damaged. */
    private byte[] decompress(int i, long off, int len, byte[] into) throws CorruptionException {
        try {
            return DataBlock.decompress(seg, off, len, into);
        } catch (IllegalArgumentException e) {
            // The checksum held, so the writer stored it so: no read can get its entries back.
            throw corrupt(off, "block " + i + " does not decompress: " + e.getMessage());
        }
    }

    /** The number of data blocks, for a check of each ({@link #checkBlock}). */
    int blockCount() { return blocks; }

    /** Checks data block {@code i} against its CRC; returns its size on disk with the CRC, in bytes. */
    long checkBlock(int i) throws CorruptionException {
        damage.checkReadable();
        try {
            streamAhead(i);
            checkedBlock(i);
            return blockLen(i) + 4L;
        } catch (InternalError e) {
            throw fault(e);
        }
    }

    /**
     * {@link #checkBlock}, and a compressed block also decompressed, as a read would: for a check
     * of the whole table, which should find every block a read would refuse.
     */
    long verifyBlock(int i) throws CorruptionException {
        damage.checkReadable();
        try {
            streamAhead(i);
            blockEntries(i);
            return blockLen(i) + 4L;
        } catch (InternalError e) {
            throw fault(e);
        }
    }

    /** A pass over the blocks in order reads ahead; block 0 starts a new pass. */
    private void streamAhead(int i) {
        synchronized (blockPass) {
            if (i == 0) blockPass.restart();
            blockPass.at(blockOffset(i));
        }
    }

    /** False when the bloom filter failed its checksum at open (every read then looks inside). */
    boolean hasBloomFilter() {
        return bloomOffset >= 0;
    }

    CorruptionException corrupt(long off, String what) {
        damaged = true;
        return damage.report(new CorruptionException(path, off, what), off);
    }

    /**
     * A read of the mapping faulted ({@link DamageLog#fault}): the table is damaged, logged once,
     * and no read touches its mapping again ({@link #checkReadable}).
     */
    CorruptionException fault(InternalError e) {
        damaged = true;
        return damage.fault(e);
    }

    /** Marks the table damaged, once, if its file is shorter than when mapped ({@link DamageLog#checkSize}). */
    void checkSize() {
        if (damage.checkSize()) damaged = true;
    }

    /** Throws if a read of the mapping faulted before: nothing more is read from it. */
    void checkReadable() throws CorruptionException {
        damage.checkReadable();
    }

    // ---- reads ----

    boolean mightContain(byte[] key) { return mightContain(Bytes.hash(key)); }

    /** Without an intact bloom filter every key might be here. */
    private boolean mightContain(long hash) {
        if (bloomOffset < 0) return true;
        return BloomFilter.mightContain(seg, bloomOffset, hash);
    }

    Entry get(byte[] key) throws CorruptionException { return get(key, Bytes.hash(key)); }

    /** Point read with the key's bloom hash computed once by the caller for all tables. */
    Entry get(byte[] key, long hash) throws CorruptionException {
        try {
            return get(key, hash, ReadBudget.UNLIMITED, Long.MIN_VALUE);
        } catch (CorruptionException e) {
            throw e;
        } catch (IOException e) {
            throw new AssertionError("an unlimited budget refused a value", e);
        }
    }

    /**
     * The same, with a value reserved in {@code budget} before it is copied (ReadBudgetExceededException
     * if it cannot be), and null for a version older than {@code atLeast}, which is not copied.
     */
    Entry get(byte[] key, long hash, ReadBudget budget, long atLeast) throws IOException {
        damage.checkReadable();
        try {
            if (!mightContain(hash)) return null;
            MemorySegment k = MemorySegment.ofArray(key);
            int b = findBlock(k);
            if (b < 0) return null;
            MemorySegment block = pointReadEntries(b);
            long p = find(block, b, k);
            if (p < 0 || block.get(Bytes.LONG, p + 8) < atLeast) return null;
            return decode(block, p, block.get(Bytes.INT, p), block.get(Bytes.INT, p + 4), budget, false);
        } catch (InternalError e) {
            throw fault(e);
        }
    }

    /**
     * The stamp of {@code key}'s entry here (its bloom hash {@code hash}), or null: found as
     * {@link #get} finds it, block checked, but neither key nor value copied.
     */
    Stamp stamp(byte[] key, long hash) throws CorruptionException {
        damage.checkReadable();
        try {
            if (!mightContain(hash)) return null;
            MemorySegment k = MemorySegment.ofArray(key);
            int b = findBlock(k);
            if (b < 0) return null;
            MemorySegment block = pointReadEntries(b);
            long p = find(block, b, k);
            if (p < 0) return null;
            long ts = block.get(Bytes.LONG, p + 8);
            if (block.get(Bytes.INT, p + 4) == TableFormat.TOMBSTONE_LEN) return new Stamp(ts, true, 0);
            return Stamp.ofValue(ts, Entry.wordOrNever(block.get(Bytes.LONG, p + 16))); // as decode reads it
        } catch (InternalError e) {
            throw fault(e);
        }
    }

    /** The offset of {@code key}'s entry in {@code block} (block {@code b}'s entries), or -1. */
    private long find(MemorySegment block, int b, MemorySegment k) throws CorruptionException {
        long end = block.byteSize();
        long p = 0;
        while (p < end) {
            int kl = block.get(Bytes.INT, p);
            int vl = block.get(Bytes.INT, p + 4);
            long entryEnd = p + TableFormat.ENTRY_HEADER + kl + Math.max(vl, 0);
            if (kl < 0 || vl < -1 || entryEnd > end) throw corrupt(blockOffset(b) + p, "malformed entry in block " + b);
            int c = Bytes.compare(k, block, p + TableFormat.ENTRY_HEADER, kl);
            if (c == 0) return p;
            if (c < 0) return -1;
            p = entryEnd;
        }
        return -1;
    }

    /** The entry at {@code p} of {@code block}, its value copied without a budget, or, with {@code borrow}, a view of the block. */
    Entry decode(MemorySegment block, long p, int kl, int vl, boolean borrow) {
        try {
            return decode(block, p, kl, vl, ReadBudget.UNLIMITED, borrow);
        } catch (ReadBudgetExceededException e) {
            throw new AssertionError("an unlimited budget refused a value", e);
        }
    }

    /**
     * The entry at {@code p} of {@code block}; its value, if any, reserved in {@code budget} before
     * it is copied, or, with {@code borrow}, a view of the block (nothing reserved or copied).
     */
    private Entry decode(MemorySegment block, long p, int kl, int vl, ReadBudget budget, boolean borrow)
            throws ReadBudgetExceededException {
        long ts = block.get(Bytes.LONG, p + 8);
        long expiry = Entry.wordOrNever(block.get(Bytes.LONG, p + 16)); // never written otherwise; read as never if so
        long k = p + TableFormat.ENTRY_HEADER;
        byte[] key = new byte[kl];
        MemorySegment.copy(block, ValueLayout.JAVA_BYTE, k, key, 0, kl);
        if (vl == TableFormat.TOMBSTONE_LEN) return Entry.tombstone(key, ts);
        if (borrow) return Entry.value(key, block.asSlice(k + kl, vl), ts, expiry);
        return Entry.value(key, Bytes.copyReserved(block, k + kl, vl, budget), ts, expiry);
    }

    /**
     * Entries with keys in {@code [from, to)}, values copied. A damaged block fails the iteration with an
     * {@link UncheckedIOException} wrapping a {@link CorruptionException}, never skips it: a
     * skipped block could hide the newest version of a key (or its tombstone) and let an older
     * version from another table through, and compaction must never silently drop data.
     */
    Iterator<Entry> iterator(byte[] from, byte[] to) {
        return new TableIterator(this, from, to, false, ReadBudget.UNLIMITED, Readahead.MIN_WINDOW);
    }

    /**
     * Every entry, its value borrowed from the mapping, or from its block's own decompressed array
     * ({@link Entry#isBorrowed}), rather than copied:
     * for compaction, which holds a reference to this table until it is done with them, so a large
     * value is never copied onto the heap on its way to the new table.
     */
    Iterator<Entry> borrowingIterator() {
        // Compaction reads the whole table: no reason to start small.
        return new TableIterator(this, null, null, true, ReadBudget.UNLIMITED, Readahead.MAX_WINDOW);
    }

    /**
     * Entries with keys in {@code [from, to)}, values borrowed as by {@link #borrowingIterator}, for
     * a scan that holds this table until it is closed: the bytes of each compressed block it
     * decompresses are reserved in {@code budget} while it reads the block (a refusal fails the
     * iteration with an {@link UncheckedIOException} wrapping a {@link ReadBudgetExceededException}).
     * Close it to give back the last reservation.
     */
    CloseableIterator<Entry> scanIterator(byte[] from, byte[] to, ReadBudget budget) {
        return new TableIterator(this, from, to, true, budget, Readahead.MIN_WINDOW);
    }

    @Override
    public String toString() { return path.getFileName() + "(" + sizeBytes + " bytes, " + entryCount + " entries)"; }
}
