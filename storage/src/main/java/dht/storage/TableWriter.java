package dht.storage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;

/**
 * Writes one immutable sorted table from entries in strictly increasing key order: data blocks
 * (each followed by its CRC32C), the block index, the bloom filter, the stats (the greatest
 * timestamp written) and the footer, then fsyncs. With a codec, each block is collected whole and
 * stored compressed ({@link BlockCompressor}); without one it is streamed to the file as it grows,
 * and its checksum computed on the way. An entry whose value is {@link TableFormat#OWN_BLOCK_VALUE}
 * bytes or more gets a block of its own, always stored raw and streamed like that: a scan reads
 * such a value in place from the mapping instead of decompressing it onto the heap, and the
 * writer never collects it whole on the heap to compress it.
 * The file is not live until a manifest names it, so a crash mid-write leaves only a leftover.
 */
final class TableWriter {
    private final StorageFiles.WritableFile out;
    private final Path path;
    private final int blockSize;
    /** Null for {@link Compression#NONE}. */
    private final BlockCompressor compressor;
    private final BloomFilter.Builder bloom;
    private final ByteBuffer buf = ByteBuffer.allocate(1 << 18).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment bufSegment = MemorySegment.ofBuffer(buf);
    /** One object for every put, not a new method reference each time. */
    private final Bytes.Drain drainer = this::drain;
    private final ByteArrayOutputStream indexEntries = new ByteArrayOutputStream();
    private int[] indexOffsets = new int[64];
    private int blocks;
    private long fileOffset;     // bytes handed to the file so far
    private long blockStart;     // file offset of the current block
    private int blockLen;        // entry bytes in the current block, before any compression
    private boolean rawBlock;    // the current block is one large entry's: stored raw whatever the codec
    private final java.util.zip.CRC32C blockCrc = new java.util.zip.CRC32C();
    private byte[] lastKey;
    private long count;
    /** The greatest timestamp written: lets a point read skip this table once it holds something newer. */
    private long maxTimestamp = Long.MIN_VALUE;
    /** Scratch for an entry header, reused: compaction writes millions of entries, one allocation each was waste. */
    private final byte[] entryHeader = new byte[TableFormat.ENTRY_HEADER];

    TableWriter(StorageFiles files, Path path, long expectedKeys, StoreOptions options) throws IOException {
        this.path = path;
        this.out = files.create(path);
        this.blockSize = options.blockSize();
        this.compressor = options.compression() == Compression.NONE ? null : new BlockCompressor(options.compression());
        this.bloom = new BloomFilter.Builder(Math.max(1, expectedKeys), options.bloomBitsPerKey());
    }

    /** Writes every entry of {@code it}; returns the number written. Closes the file either way. */
    static long write(StorageFiles files, Path path, Iterator<Entry> it, long expectedKeys, StoreOptions options)
            throws IOException {
        TableWriter w = new TableWriter(files, path, expectedKeys, options);
        try {
            // A flush or compaction takes a core for as long as it runs; on a machine whose cores
            // the request path already keeps busy, the requests that wait meanwhile form the tail.
            // Yielding every so often lets a waiting request thread run first (StoreOptions#yieldEveryEntries).
            int yieldEvery = options.yieldEveryEntries();
            while (it.hasNext()) {
                w.add(it.next());
                if (yieldEvery > 0 && w.count % yieldEvery == 0) Thread.yield();
            }
            w.finish();
            return w.count;
        } finally {
            w.out.close();
        }
    }

    void add(Entry e) throws IOException {
        byte[] k = e.key();
        if (lastKey != null && Arrays.compareUnsigned(lastKey, k) >= 0) {
            throw new IllegalStateException("keys out of order while writing " + path);
        }
        boolean large = compressor != null && !e.isTombstone() && e.valueLength() >= TableFormat.OWN_BLOCK_VALUE;
        if (large && blockLen > 0) endBlock();
        if (blockLen == 0) {
            startBlock(k);
            rawBlock = large;
        }
        byte[] header = entryHeader;
        Bytes.putInt(header, 0, k.length);
        Bytes.putInt(header, 4, e.isTombstone() ? TableFormat.TOMBSTONE_LEN : e.valueLength());
        Bytes.putLong(header, 8, e.timestamp());
        Bytes.putLong(header, 16, e.expiryWord());
        blockBytes(header);
        blockBytes(k);
        if (e.isBorrowed()) blockBytes(e.valueSegment());
        else if (!e.isTombstone()) blockBytes(e.value());
        bloom.add(k);
        lastKey = k;
        count++;
        maxTimestamp = Math.max(maxTimestamp, e.timestamp());
        if (blockLen >= blockSize || large) endBlock();
    }

    private void startBlock(byte[] firstKey) {
        blockStart = fileOffset + buf.position();
        blockCrc.reset();
        if (blocks == indexOffsets.length) indexOffsets = Arrays.copyOf(indexOffsets, blocks * 2);
        indexOffsets[blocks] = indexEntries.size();
        byte[] h = new byte[4];
        Bytes.putInt(h, 0, firstKey.length);
        indexEntries.writeBytes(h);
        indexEntries.writeBytes(firstKey);
    }

    private void endBlock() throws IOException {
        int stored = blockLen;
        if (compressor != null && !rawBlock) {
            compressor.finish();
            stored = compressor.payloadLength();
            blockCrc.update(compressor.payload(), 0, stored);
            Bytes.putInPieces(compressor.payload(), 0, stored, buf, drainer);
        }
        byte[] t = new byte[12];
        Bytes.putLong(t, 0, blockStart);
        Bytes.putInt(t, 8, stored);
        indexEntries.writeBytes(t);
        byte[] crc = new byte[4];
        Bytes.putInt(crc, 0, (int) blockCrc.getValue());
        raw(crc);
        blocks++;
        blockLen = 0;
        rawBlock = false;
    }

    private void blockBytes(byte[] b) throws IOException {
        blockLen += b.length;
        if (compressor != null && !rawBlock) {
            compressor.put(b);
            return;
        }
        blockCrc.update(b, 0, b.length);
        raw(b);
    }

    /** A value where it is (a memtable's arena, another table's mapping): copied into the buffer a piece at a time. */
    private void blockBytes(MemorySegment v) throws IOException {
        blockLen += (int) v.byteSize();
        if (compressor != null && !rawBlock) {
            compressor.put(v);
            return;
        }
        Bytes.putInPieces(v, buf, bufSegment, blockCrc, drainer);
    }

    private void raw(byte[] b) throws IOException {
        Bytes.putInPieces(b, buf, drainer);
    }

    private void drain() throws IOException {
        buf.flip();
        fileOffset += buf.remaining();
        out.write(buf);
        buf.clear();
    }

    private void finish() throws IOException {
        if (blockLen > 0) endBlock();
        long indexOffset = fileOffset + buf.position();
        int headerLen = 4 + blocks * 4;
        byte[] entries = indexEntries.toByteArray();
        byte[] index = new byte[headerLen + entries.length + 4];
        Bytes.putInt(index, 0, blocks);
        for (int i = 0; i < blocks; i++) Bytes.putInt(index, 4 + i * 4, headerLen + indexOffsets[i]);
        System.arraycopy(entries, 0, index, headerLen, entries.length);
        Bytes.putInt(index, index.length - 4, Bytes.crc(index, 0, index.length - 4));
        raw(index);
        long bloomOffset = indexOffset + index.length;
        byte[] bloomBytes = bloom.toBytes();
        raw(bloomBytes);
        byte[] stats = new byte[TableFormat.STATS];
        Bytes.putLong(stats, 0, maxTimestamp);
        Bytes.putInt(stats, 8, Bytes.crc(stats, 0, 8));
        raw(stats);
        byte[] f = new byte[TableFormat.FOOTER];
        Bytes.putLong(f, 0, indexOffset);
        Bytes.putInt(f, 8, index.length);
        Bytes.putLong(f, 12, bloomOffset);
        Bytes.putInt(f, 20, bloomBytes.length);
        Bytes.putLong(f, 24, count);
        Bytes.putInt(f, 32, TableFormat.VERSION);
        Bytes.putInt(f, 36, Bytes.crc(f, 0, 36));
        Bytes.putLong(f, 40, TableFormat.MAGIC);
        raw(f);
        drain();
        out.sync();
    }
}
