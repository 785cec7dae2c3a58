package dht.storage;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a table's regions lie, read from its footer and checked once, at open, in the order
 * docs/storage-format.md gives ("Sorted table"): footer, version, stats, region bounds, index,
 * index entries, bloom filter. A damaged footer or index throws a {@link CorruptionException}
 * (the store then salvages the data blocks: {@link TableSalvage}); a damaged bloom filter or stats
 * region costs only speed and is logged (under {@link Table}'s name), the table read without it.
 *
 * @param bloomOffset  where the bloom filter starts; -1 when it failed its checks
 * @param maxTimestamp the greatest timestamp in the table; {@link Long#MAX_VALUE} when the stats
 *                     region failed its checksum (the table is then never skipped)
 */
record TableRegions(long indexOffset, int blocks, long bloomOffset, long entryCount, long maxTimestamp,
                    boolean statsDamaged) {
    private static final Logger log = LoggerFactory.getLogger(Table.class);

    /** The regions of the table {@code path}, mapped whole as {@code seg}. */
    static TableRegions read(Path path, MemorySegment seg) throws IOException {
        long size = seg.byteSize();
        if (size < TableFormat.FOOTER) throw new CorruptionException(path, 0, "file of " + size + " bytes has no footer");
        long f = size - TableFormat.FOOTER;
        if (seg.get(Bytes.LONG, f + 40) != TableFormat.MAGIC) throw new CorruptionException(path, f, "bad magic number");
        if (Bytes.crc(seg, f, 36) != seg.get(Bytes.INT, f + 36)) throw new CorruptionException(path, f, "footer checksum mismatch");
        int version = seg.get(Bytes.INT, f + 32);
        if (version < TableFormat.OLDEST_READ || version > TableFormat.VERSION) {
            // An intact footer of another format: not damage. Setting the table aside as
            // corrupt would drop its entries from the manifest, so the open fails instead.
            throw new IOException(path + " has table format version " + version + "; this build reads versions "
                    + TableFormat.OLDEST_READ + " to " + TableFormat.VERSION
                    + (version > TableFormat.VERSION ? " (written by a newer dht: run that one)"
                    : " (a pre-release format, no longer read: recreate the data directory)"));
        }
        long regionsEnd = f - TableFormat.STATS; // where the bloom region must end
        if (regionsEnd < 0) throw new CorruptionException(path, 0, "file of " + size + " bytes has no stats region");
        long maxTimestamp = Long.MAX_VALUE;
        boolean statsDamaged = false;
        if (Bytes.crc(seg, regionsEnd, 8) != seg.get(Bytes.INT, regionsEnd + 8)) {
            // Only an optimisation is lost: without its greatest timestamp the table is never skipped.
            log.warn("{}: stats checksum mismatch at offset {}; reading the table without them", path, regionsEnd);
            statsDamaged = true;
        } else {
            maxTimestamp = seg.get(Bytes.LONG, regionsEnd);
        }
        long indexOffset = seg.get(Bytes.LONG, f);
        long indexLen = seg.get(Bytes.INT, f + 8) & 0xffffffffL;
        long bloomOffset = seg.get(Bytes.LONG, f + 12);
        long bloomLen = seg.get(Bytes.INT, f + 20) & 0xffffffffL;
        long count = seg.get(Bytes.LONG, f + 24);
        if (indexOffset < 0 || indexLen < 8 || indexOffset + indexLen != bloomOffset || bloomLen < 12
                || bloomOffset + bloomLen != regionsEnd) {
            throw new CorruptionException(path, f, "footer regions out of bounds");
        }
        // Open reads the whole index and bloom filter: ask for them at once, not page by page.
        MappingAdvice.willNeed(seg, indexOffset, size - indexOffset);
        if (Bytes.crc(seg, indexOffset, indexLen - 4) != seg.get(Bytes.INT, indexOffset + indexLen - 4)) {
            throw new CorruptionException(path, indexOffset, "index checksum mismatch");
        }
        int blocks = seg.get(Bytes.INT, indexOffset);
        if (blocks < 0 || 4L + 4L * blocks > indexLen - 4) throw new CorruptionException(path, indexOffset, "bad block count");
        checkIndexEntries(path, seg, indexOffset, indexLen, blocks);
        long nwords = seg.get(Bytes.INT, bloomOffset + 4) & 0xffffffffL;
        boolean bloomIntact = Bytes.crc(seg, bloomOffset, bloomLen - 4) == seg.get(Bytes.INT, bloomOffset + bloomLen - 4)
                && nwords != 0 && 8 + nwords * 8 + 4 == bloomLen && nwords % BloomFilter.BLOCK_WORDS == 0;
        if (!bloomIntact) {
            // The entries are all still there, each block under its own checksum: only the
            // filter that skips the table for absent keys is lost, so every read looks inside.
            log.warn("{}: bloom filter damaged (checksum or size) at offset {}; reading the table without it", path, bloomOffset);
        }
        return new TableRegions(indexOffset, blocks, bloomIntact ? bloomOffset : -1, count, maxTimestamp, statsDamaged);
    }

    /**
     * Each index entry ({@code key_len u32 | key | offset u64 | len u32}) must lie inside the index,
     * before its checksum: the checksum only proves the bytes are those written, and reads trust
     * the entries without further bounds checks.
     */
    private static void checkIndexEntries(Path path, MemorySegment seg, long indexOffset, long indexLen, int blocks)
            throws CorruptionException {
        long entriesEnd = indexLen - 4; // relative to indexOffset
        for (int i = 0; i < blocks; i++) {
            long e = seg.get(Bytes.INT, indexOffset + 4 + 4L * i) & 0xffffffffL;
            if (e < 4 + 4L * blocks || e + 4 > entriesEnd) throw new CorruptionException(path, indexOffset, "index entry " + i + " out of bounds");
            int kl = seg.get(Bytes.INT, indexOffset + e);
            if (kl < 0 || e + 4 + kl + 12 > entriesEnd) throw new CorruptionException(path, indexOffset, "index entry " + i + " out of bounds");
        }
    }
}
