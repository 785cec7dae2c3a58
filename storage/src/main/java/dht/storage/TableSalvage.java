package dht.storage;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.zip.CRC32C;

/**
 * Recovers the entries of a table that {@link Table#open} refused (damaged footer or index, or a
 * truncated file) from its data blocks alone, and writes them into a new table.
 *
 * <p>Without the index nothing says where a block ends, but each block is its payload followed by
 * its CRC32C, and each entry carries its own lengths. So the walk reads entry after entry from
 * the start of the file and takes the entries read so far as a block as soon as the next four bytes
 * are their checksum: the same proof of integrity a read asks of a block through the index. A
 * compressed block ({@link DataBlock}) says its own length in its header: it is taken when the
 * checksum after that length holds and it decompresses into well-formed entries.
 *
 * <p>Invariants: only entries of a block whose checksum matched are written; keys strictly increase
 * across everything written (a block that breaks the order ends the walk), as the table format
 * requires; the walk stops at the first stretch that is not an intact block, and goes on past it only
 * where the blocks after it are proven: by an intact index found past that point whose blocks tile
 * the file from offset 0 up to it and agree with the blocks found before ({@link #indexAfter}), or,
 * with an intact footer, by a chain of intact blocks that ends exactly where the footer says the
 * data blocks end ({@link #resync}); else a damaged data block loses itself and every block after
 * it; the walk never takes the index for a block: with an intact footer it stops where the footer says the index
 * starts, and without one it stops where the bytes are exactly the index the blocks found so far
 * would have (the index is also bytes followed by their CRC32C, and its keys come from clients, so
 * read as entries it could otherwise pass for a block). The damaged file is only read.
 */
final class TableSalvage {
    /**
     * What the walk proved intact: {@code blocks} blocks holding {@code entries} entries; where it
     * stopped ({@code end}) and where the data blocks end ({@code dataEnd}: the index's offset when
     * it was found, through the footer or by its bytes, else -1 for unknown); and the entry count the
     * footer records, or -1 when the footer is damaged.
     */
    record Outcome(int blocks, long entries, long end, long dataEnd, long footerEntries, List<String> skipped) {
        /** True when every data block of the table was kept. */
        boolean complete() {
            return skipped.isEmpty() && end == dataEnd && (footerEntries < 0 || footerEntries == entries);
        }

        /** What was kept, for the log line: all of it, or where the walk stopped and what that means. */
        String describe() {
            if (complete()) return "every data block intact, " + blocks + " blocks";
            if (!skipped.isEmpty() && end == dataEnd) {
                return blocks + " intact data blocks; damaged and skipped: " + String.join(", ", skipped)
                        + (footerEntries >= 0 ? " (" + entries + " of the " + footerEntries + " entries the footer records)" : "");
            }
            if (dataEnd < 0) {
                return blocks + " intact data blocks; the walk stopped at offset " + end
                        + " and found no index, so whether more blocks followed is unknown";
            }
            return blocks + " intact data blocks; the walk stopped at offset " + end + " of the " + dataEnd
                    + " bytes of data blocks, the blocks after it are lost"
                    + (footerEntries >= 0 ? " (" + entries + " of the " + footerEntries + " entries the footer records)" : "");
        }
    }

    /**
     * An intact block: its payload's offset and length in the file (the CRC follows it), and its
     * entries: a slice of the file, or the block decompressed.
     */
    private record Block(long offset, long length, MemorySegment entries, long count, byte[] lastKey) {
        /**
         * The same block holding only its first entry's header and key, all that finding the index
         * needs: a dry run ({@code bin/dht verify}) keeps no decompressed block on the heap.
         */
        Block trimmed() {
            int kl = entries.get(Bytes.INT, 0);
            byte[] first = entries.asSlice(0, TableFormat.ENTRY_HEADER + kl).toArray(ValueLayout.JAVA_BYTE);
            return new Block(offset, length, MemorySegment.ofArray(first), count, lastKey);
        }
    }

    private TableSalvage() {}

    /**
     * Writes the intact blocks' entries of {@code damaged} into a new table at {@code target}
     * (fsynced, not yet named by any manifest). Writes nothing when no block is intact, or when
     * {@code target} is null: then it only says what a salvage would keep ({@code bin/dht verify}).
     */
    static Outcome salvage(StorageFiles files, Path damaged, Path target, StoreOptions options) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = files.map(damaged, arena);
            boolean dry = target == null;
            long size = seg.byteSize();
            long footer = size - TableFormat.FOOTER;
            boolean footerIntact = footer >= 0 && seg.get(Bytes.LONG, footer + 40) == TableFormat.MAGIC
                    && Bytes.crc(seg, footer, 36) == seg.get(Bytes.INT, footer + 36);
            long indexOffset = footerIntact ? seg.get(Bytes.LONG, footer) : -1;
            if (indexOffset < 0 || indexOffset > footer) indexOffset = -1;
            long limit = indexOffset >= 0 ? indexOffset : size;
            List<Block> blocks = new ArrayList<>();
            long p = 0;
            byte[] lastKey = null;
            while (true) {
                if (indexOffset < 0 && isIndexOf(seg, p, blocks)) {
                    indexOffset = p;
                    break;
                }
                Block found = blockAt(seg, p, limit, lastKey, null);
                if (found == null) break;
                blocks.add(dry ? found.trimmed() : found);
                lastKey = found.lastKey();
                p += found.length() + 4;
            }
            List<String> skipped = new ArrayList<>();
            if (indexOffset < 0 || p < indexOffset) {
                // Stopped short of the data's end: a damaged block, or a cut. Go on only where what
                // follows is proven: by an intact index past here, or by a chain of intact blocks
                // that ends exactly where an intact footer says the data blocks end.
                // resync ends at the footer's index offset, the only end it accepts
                long at = indexOffset < 0 ? indexAfter(seg, p, blocks, skipped, dry) : resync(seg, p, indexOffset, blocks, skipped, dry);
                if (at >= 0) p = indexOffset = at;
            }
            long entries = 0;
            for (Block b : blocks) entries += b.count();
            long footerEntries = footerIntact ? seg.get(Bytes.LONG, footer + 24) : -1;
            if (entries > 0 && target != null) TableWriter.write(files, target, entries(blocks), entries, options);
            return new Outcome(blocks.size(), entries, p, indexOffset, footerEntries, List.copyOf(skipped));
        }
    }

    /** The intact block of either kind starting at {@code start} ({@link #compressedBlock}, else {@link #nextBlock}), or null. */
    private static Block blockAt(MemorySegment seg, long start, long limit, byte[] lastKey, long[] budget) {
        Block b = compressedBlock(seg, start, limit, lastKey, budget);
        return b != null ? b : nextBlock(seg, start, limit, lastKey, budget);
    }

    /**
     * The intact uncompressed block starting at {@code start}, whose keys all follow
     * {@code lastKey} (null: any), or null when none starts there.
     */
    private static Block nextBlock(MemorySegment seg, long start, long limit, byte[] lastKey, long[] budget) {
        CRC32C crc = new CRC32C();
        long p = start;
        long n = 0;
        long prevKey = -1;
        long prevLen = 0;
        while (p + TableFormat.ENTRY_HEADER <= limit) {
            int kl = seg.get(Bytes.INT, p);
            int vl = seg.get(Bytes.INT, p + 4);
            if (!plausible(kl, vl)) return null;
            long key = p + TableFormat.ENTRY_HEADER;
            long end = key + kl + Math.max(vl, 0);
            if (end + 4 > limit) return null;
            if (prevKey >= 0 ? compare(seg, prevKey, prevLen, key, kl) >= 0
                    : lastKey != null && Bytes.compare(lastKey, seg, key, kl) >= 0) {
                return null;
            }
            if (budget != null && (budget[0] -= end - p) < 0) return null;
            crc.update(seg.asSlice(p, end - p).asByteBuffer());
            n++;
            prevKey = key;
            prevLen = kl;
            p = end;
            if ((int) crc.getValue() == seg.get(Bytes.INT, p)) {
                return new Block(start, p - start, seg.asSlice(start, p - start), n,
                        seg.asSlice(prevKey, prevLen).toArray(ValueLayout.JAVA_BYTE));
            }
        }
        return null;
    }

    /** The largest raw length of a compressed block ({@link DataBlock}'s bound). */
    private static final int MAX_RAW_BLOCK = 1 << 30;

    /** No entry the store accepts is larger (and a slice past 2 GiB could not be checksummed). */
    private static boolean plausible(int kl, int vl) {
        return kl >= 0 && kl <= LogRecord.MAX_BODY && vl >= TableFormat.TOMBSTONE_LEN && vl <= LogRecord.MAX_BODY;
    }

    /**
     * The intact compressed block starting at {@code start}: its header's length fits, the CRC
     * after it holds, and it decompresses into whole entries whose keys increase from past
     * {@code lastKey}. Null when there is none.
     */
    private static Block compressedBlock(MemorySegment seg, long start, long limit, byte[] lastKey, long[] budget) {
        if (start + DataBlock.COMPRESSED_HEADER + 4 > limit || !DataBlock.isCompressed(seg, start)) return null;
        // The header first, cheaply: a scan past damage tries every offset, and half of arbitrary
        // bytes read as a negative first int; only a real codec, a raw length a block may have and
        // a stored length that saved something earn the checksum over up to that many bytes.
        Compression codec = Compression.ofId(-seg.get(Bytes.INT, start));
        int raw = DataBlock.rawLength(seg, start);
        long stored = seg.get(Bytes.INT, start + 8) & 0xffffffffL;
        if (codec == null || codec == Compression.NONE || raw <= 0 || raw > MAX_RAW_BLOCK || stored >= raw) return null;
        long len = DataBlock.COMPRESSED_HEADER + stored;
        if (start + len + 4 > limit || (budget != null && (budget[0] -= len) < 0)
                || Bytes.crc(seg, start, len) != seg.get(Bytes.INT, start + len)) return null;
        MemorySegment entries;
        try {
            entries = MemorySegment.ofArray(DataBlock.decompress(seg, start, (int) len));
        } catch (IllegalArgumentException e) {
            return null;
        }
        long p = 0;
        long n = 0;
        byte[] prev = lastKey;
        while (p < entries.byteSize()) {
            if (p + TableFormat.ENTRY_HEADER > entries.byteSize()) return null;
            int kl = entries.get(Bytes.INT, p);
            int vl = entries.get(Bytes.INT, p + 4);
            if (!plausible(kl, vl)) return null;
            long key = p + TableFormat.ENTRY_HEADER;
            long end = key + kl + Math.max(vl, 0);
            if (end > entries.byteSize() || prev != null && Bytes.compare(prev, entries, key, kl) >= 0) return null;
            prev = entries.asSlice(key, kl).toArray(ValueLayout.JAVA_BYTE);
            n++;
            p = end;
        }
        return n == 0 ? null : new Block(start, len, entries, n, prev);
    }

    /**
     * With no intact footer, looks past {@code from} (where the walk stopped) for the table's index:
     * bytes whose CRC32C holds, listing blocks that tile the file from offset 0 to where the index
     * starts, the first of them exactly the {@code blocks} found so far. Its other blocks are
     * appended to {@code blocks} when their own CRC holds and their entries parse with keys
     * increasing (each first key the one the index records); the others are named in
     * {@code skipped}. Returns the index's offset, or -1 when there is no such index (it is damaged
     * too, or the file was cut).
     */
    private static long indexAfter(MemorySegment seg, long from, List<Block> blocks, List<String> skipped, boolean dry) {
        long size = seg.byteSize();
        // From the end back: the real index is the last one in the file, so bytes inside a value
        // before it that read as an index are never reached while it is intact.
        for (long q = size - 8; q >= from; q--) {
            int count = seg.get(Bytes.INT, q);
            // cheap filters first: more blocks than found, each of at least an entry header and a CRC
            // before q, and the first entry right after the offsets
            if (count <= blocks.size() || count > q / (TableFormat.ENTRY_HEADER + 4)
                    || seg.get(Bytes.INT, q + 4) != 4 + 4 * count) continue;
            if (indexEnd(seg, q, count) < 0) continue;
            // proven: now read it (no allocation before the checksum held)
            long e = afterListed(seg, q, count, blocks);
            if (e < 0) continue;
            byte[] lastKey = blocks.isEmpty() ? null : blocks.getLast().lastKey();
            for (int k = blocks.size(); k < count; k++) {
                int kl = seg.get(Bytes.INT, e);
                long o = seg.get(Bytes.LONG, e + 4 + kl);
                int len = seg.get(Bytes.INT, e + 12 + kl);
                Block b = blockAt(seg, o, o + len + 4, lastKey, null);
                if (b == null || b.length() != len || MemorySegment.mismatch(seg, e + 4, e + 4 + kl, b.entries(),
                        TableFormat.ENTRY_HEADER, TableFormat.ENTRY_HEADER + b.entries().get(Bytes.INT, 0)) >= 0) {
                    skipped.add("the block at offset " + o + " (" + len + " bytes)");
                } else {
                    blocks.add(dry ? b.trimmed() : b);
                    lastKey = b.lastKey();
                }
                e += 4 + kl + 12;
            }
            return q;
        }
        return -1;
    }

    /**
     * Where the index whose bytes would start at {@code q} with {@code count} blocks ends (its CRC
     * included), or -1 unless its offsets table points at its entries in turn, its blocks tile the
     * file from offset 0 to exactly {@code q}, and its CRC32C holds. Reads, allocates nothing.
     */
    private static long indexEnd(MemorySegment seg, long q, int count) {
        long size = seg.byteSize();
        long e = q + 4 + 4L * count;
        long expected = 0; // each block starts where the one before ends, its CRC included
        for (int i = 0; i < count; i++) {
            if (e + 4 > size || seg.get(Bytes.INT, q + 4 + 4L * i) != (int) (e - q)) return -1;
            int kl = seg.get(Bytes.INT, e);
            if (kl < 0 || e + 4 + kl + 12 > size) return -1;
            long o = seg.get(Bytes.LONG, e + 4 + kl);
            int len = seg.get(Bytes.INT, e + 12 + kl);
            if (o != expected || len <= 0) return -1;
            expected = o + len + 4;
            if (expected > q) return -1;
            e += 4 + kl + 12;
        }
        if (expected != q || e + 4 > size || Bytes.crc(seg, q, e - q) != seg.get(Bytes.INT, e)) return -1;
        return e + 4;
    }

    /** How many times over {@link #resync} may read the bytes past the damage before it gives up. */
    private static final long RESYNC_PASSES = 8;

    /**
     * With an intact footer (the data blocks end at {@code dataEnd}), looks past {@code from} for the
     * first offset from which intact blocks, keys increasing past those found, follow one another to
     * exactly {@code dataEnd}, and appends them to {@code blocks}; the stretch before it is named in
     * {@code skipped}. Returns {@code dataEnd}, or -1 when no offset leads there (the first damage
     * is then the walk's end, as before).
     */
    private static long resync(MemorySegment seg, long from, long dataEnd, List<Block> blocks, List<String> skipped, boolean dry) {
        byte[] lastKey = blocks.isEmpty() ? null : blocks.getLast().lastKey();
        // Chains from false starts mostly fail within bytes, but one from a real block start before
        // a second damage re-reads every block up to it: a budget of reading the rest a few times
        // over bounds the work (past it, the blocks after the damage are lost, as without resync).
        long[] budget = {RESYNC_PASSES * (dataEnd - from)};
        for (long q = from + 1; q < dataEnd && budget[0] > 0; q++) {
            List<Block> chain = new ArrayList<>();
            long p = q;
            byte[] last = lastKey;
            while (p < dataEnd) {
                Block b = blockAt(seg, p, dataEnd, last, budget);
                if (b == null) break;
                chain.add(dry ? b.trimmed() : b);
                last = b.lastKey();
                p += b.length() + 4;
            }
            budget[0]--; // each start tried costs at least its own byte
            if (p == dataEnd && !chain.isEmpty()) {
                skipped.add("offsets " + from + " to " + q);
                blocks.addAll(chain);
                return dataEnd;
            }
        }
        return -1;
    }

    /**
     * Whether the bytes at {@code p} are exactly the index {@link TableWriter} writes after
     * {@code blocks}: their count, the entry offsets, each block's first key, offset and length,
     * and the CRC32C of all that.
     */
    private static boolean isIndexOf(MemorySegment seg, long p, List<Block> blocks) {
        int count = blocks.size();
        // The count first: at nearly every block boundary it is a key length, not this count.
        if (count == 0 || p + 4 > seg.byteSize() || seg.get(Bytes.INT, p) != count) return false;
        return indexEnd(seg, p, count) >= 0 && afterListed(seg, p, count, blocks) >= 0;
    }

    /**
     * Where the index entry after the first {@code blocks.size()} of the index at {@code q} starts,
     * when those list exactly {@code blocks} (each one's first key, offset and length); else -1.
     * Only for an index {@link #indexEnd} proved, whose entries are then within the file.
     */
    private static long afterListed(MemorySegment seg, long q, int count, List<Block> blocks) {
        long e = q + 4 + 4L * count;
        for (Block b : blocks) {
            int kl = seg.get(Bytes.INT, e);
            MemorySegment entries = b.entries();
            if (kl != entries.get(Bytes.INT, 0)
                    || MemorySegment.mismatch(seg, e + 4, e + 4 + kl, entries, TableFormat.ENTRY_HEADER, TableFormat.ENTRY_HEADER + kl) >= 0
                    || seg.get(Bytes.LONG, e + 4 + kl) != b.offset()
                    || seg.get(Bytes.INT, e + 12 + kl) != (int) b.length()) {
                return -1;
            }
            e += 4 + kl + 12;
        }
        return e;
    }

    /** Unsigned comparison of two keys inside {@code seg}. */
    private static int compare(MemorySegment seg, long a, long aLen, long b, long bLen) {
        long m = MemorySegment.mismatch(seg, a, a + aLen, seg, b, b + bLen);
        if (m < 0) return 0;
        if (m == aLen) return -1;
        if (m == bLen) return 1;
        return Integer.compare(seg.get(ValueLayout.JAVA_BYTE, a + m) & 0xff, seg.get(ValueLayout.JAVA_BYTE, b + m) & 0xff);
    }

    /** The entries of the checked blocks, in order. */
    private static Iterator<Entry> entries(List<Block> blocks) {
        return new Iterator<>() {
            int block = 0;
            long p = 0;

            @Override
            public boolean hasNext() {
                return block < blocks.size();
            }

            @Override
            public Entry next() {
                if (!hasNext()) throw new NoSuchElementException();
                Block b = blocks.get(block);
                MemorySegment seg = b.entries();
                int kl = seg.get(Bytes.INT, p);
                int vl = seg.get(Bytes.INT, p + 4);
                long ts = seg.get(Bytes.LONG, p + 8);
                long expiry = Entry.wordOrNever(seg.get(Bytes.LONG, p + 16));
                long k = p + TableFormat.ENTRY_HEADER;
                byte[] key = seg.asSlice(k, kl).toArray(ValueLayout.JAVA_BYTE);
                Entry e = vl == TableFormat.TOMBSTONE_LEN ? Entry.tombstone(key, ts)
                        : Entry.value(key, seg.asSlice(k + kl, vl).toArray(ValueLayout.JAVA_BYTE), ts, expiry);
                p = k + kl + Math.max(vl, 0);
                if (p == seg.byteSize()) {
                    block++;
                    p = 0;
                }
                return e;
            }
        };
    }
}
