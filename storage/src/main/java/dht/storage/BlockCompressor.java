package dht.storage;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Collects one data block's entries and encodes them as a compressed payload ({@link DataBlock}),
 * or leaves them as they are when compression would not save enough. Used by {@link TableWriter}
 * for a codec other than none; with none, blocks are streamed to the file without this copy.
 * One per writer: not thread-safe.
 */
final class BlockCompressor {
    private final Compression compression;
    private byte[] raw = new byte[8192];
    private int rawLength;
    private byte[] out = new byte[0];
    private byte[] payload;
    private int payloadLength;

    BlockCompressor(Compression compression) {
        if (compression.codec() == null) throw new IllegalArgumentException("no codec: " + compression);
        this.compression = compression;
    }

    void put(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, raw, rawLength, b.length);
        rawLength += b.length;
    }

    void put(MemorySegment v) {
        int n = Math.toIntExact(v.byteSize());
        ensure(n);
        MemorySegment.copy(v, ValueLayout.JAVA_BYTE, 0, raw, rawLength, n); // no segment made of raw per value
        rawLength += n;
    }

    private void ensure(int more) {
        long need = (long) rawLength + more;
        if (need > raw.length) raw = Arrays.copyOf(raw, Math.toIntExact(Math.max(need, Math.min(Integer.MAX_VALUE - 8, 2L * raw.length))));
    }

    /**
     * Encodes the entries put since the last call, and starts a new block: afterwards
     * {@link #payload()} holds the bytes to store, {@link #payloadLength()} of them.
     */
    void finish() {
        BlockCodec codec = compression.codec();
        int bound = DataBlock.COMPRESSED_HEADER + codec.maxCompressedLength(rawLength);
        if (out.length < bound) out = new byte[bound];
        int n = codec.compress(raw, 0, rawLength, out, DataBlock.COMPRESSED_HEADER);
        if (DataBlock.worthCompressing(rawLength, DataBlock.COMPRESSED_HEADER + n)) {
            Bytes.putInt(out, 0, -compression.id);
            Bytes.putInt(out, 4, rawLength);
            Bytes.putInt(out, 8, n);
            payload = out;
            payloadLength = DataBlock.COMPRESSED_HEADER + n;
        } else {
            payload = raw;
            payloadLength = rawLength;
        }
        rawLength = 0;
    }

    byte[] payload() {
        return payload;
    }

    int payloadLength() {
        return payloadLength;
    }
}
