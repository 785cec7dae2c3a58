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
 * <p>Without the index nothing says where a block ends, but each block is its entries followed by
 * their CRC32C, and each entry carries its own lengths. So the walk reads entry after entry from
 * the start of the file and takes the entries read so far as a block as soon as the next four bytes
 * are their checksum: the same proof of integrity a read asks of a block through the index.
 *
 * <p>Invariants: only entries of a block whose checksum matched are written; keys strictly increase
 * across everything written (a block that breaks the order ends the walk), as the table format
 * requires; the walk ends at the first stretch that is not an intact block, because past it the next
 * block's start is unknown, so a damaged data block loses itself and every block after it; when
 * the footer is intact the walk never reads past the start of the index. The damaged file is only
 * read.
 */
final class TableSalvage {
    /** What the walk proved intact: {@code blocks} blocks holding {@code entries} entries, in the file's first {@code bytes} bytes. */
    record Outcome(int blocks, long entries, long bytes, long fileBytes) {}

    private record Block(long offset, long length) {}

    private TableSalvage() {}

    /**
     * Writes the intact blocks' entries of {@code damaged} into a new table at {@code target}
     * (fsynced, not yet named by any manifest). Writes nothing when no block is intact.
     */
    static Outcome salvage(StorageFiles files, Path damaged, Path target, StoreOptions options) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = files.map(damaged, arena);
            List<Block> blocks = new ArrayList<>();
            long entries = 0;
            long p = 0;
            long limit = dataLimit(seg);
            long[] lastKey = null; // offset and length of the last key taken, in seg
            while (true) {
                long[] found = nextBlock(seg, p, limit, lastKey);
                if (found == null) break;
                blocks.add(new Block(p, found[0]));
                entries += found[1];
                lastKey = new long[] {found[2], found[3]};
                p += found[0] + 4;
            }
            Outcome outcome = new Outcome(blocks.size(), entries, p, seg.byteSize());
            if (entries > 0) TableWriter.write(files, target, entries(seg, blocks), entries, options);
            return outcome;
        }
    }

    /**
     * Where data blocks must end: the index's start when the footer proves itself (magic and
     * checksum), else the end of the file.
     */
    private static long dataLimit(MemorySegment seg) {
        long size = seg.byteSize();
        if (size < TableFormat.FOOTER) return size;
        long f = size - TableFormat.FOOTER;
        if (seg.get(Bytes.LONG, f + 40) != TableFormat.MAGIC || Bytes.crc(seg, f, 36) != seg.get(Bytes.INT, f + 36)) {
            return size;
        }
        long indexOffset = seg.get(Bytes.LONG, f);
        return indexOffset >= 0 && indexOffset <= f ? indexOffset : size;
    }

    /**
     * The intact block starting at {@code start}, as {length of its entries, entry count, offset
     * and length of its last key}, or null when none starts there.
     */
    private static long[] nextBlock(MemorySegment seg, long start, long limit, long[] lastKey) {
        CRC32C crc = new CRC32C();
        long p = start;
        long n = 0;
        long prevKey = lastKey == null ? -1 : lastKey[0];
        long prevLen = lastKey == null ? 0 : lastKey[1];
        while (p + TableFormat.ENTRY_HEADER <= limit) {
            int kl = seg.get(Bytes.INT, p);
            int vl = seg.get(Bytes.INT, p + 4);
            if (kl <= 0 || vl < TableFormat.TOMBSTONE_LEN) return null;
            long key = p + TableFormat.ENTRY_HEADER;
            long end = key + kl + Math.max(vl, 0);
            if (end + 4 > limit) return null;
            if (prevKey >= 0 && compare(seg, prevKey, prevLen, key, kl) >= 0) return null;
            crc.update(seg.asSlice(p, end - p).asByteBuffer());
            n++;
            prevKey = key;
            prevLen = kl;
            p = end;
            if ((int) crc.getValue() == seg.get(Bytes.INT, p)) return new long[] {p - start, n, prevKey, prevLen};
        }
        return null;
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
    private static Iterator<Entry> entries(MemorySegment seg, List<Block> blocks) {
        return new Iterator<>() {
            int block = 0;
            long p = blocks.getFirst().offset();

            @Override
            public boolean hasNext() {
                return block < blocks.size();
            }

            @Override
            public Entry next() {
                if (!hasNext()) throw new NoSuchElementException();
                Block b = blocks.get(block);
                int kl = seg.get(Bytes.INT, p);
                int vl = seg.get(Bytes.INT, p + 4);
                long ts = seg.get(Bytes.LONG, p + 8);
                long k = p + TableFormat.ENTRY_HEADER;
                byte[] key = seg.asSlice(k, kl).toArray(ValueLayout.JAVA_BYTE);
                Entry e = vl == TableFormat.TOMBSTONE_LEN ? Entry.tombstone(key, ts)
                        : Entry.value(key, seg.asSlice(k + kl, vl).toArray(ValueLayout.JAVA_BYTE), ts);
                p = k + kl + Math.max(vl, 0);
                if (p == b.offset() + b.length()) {
                    block++;
                    if (block < blocks.size()) p = blocks.get(block).offset();
                }
                return e;
            }
        };
    }
}
