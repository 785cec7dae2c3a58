package dht.storage;

import java.nio.ByteBuffer;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * LZ4 block format through lz4-java (native where it loads, else pure Java). Decompression uses
 * the bounds-checking decoder: the fast one trusts the input's lengths.
 */
final class Lz4Codec implements BlockCodec {
    private static final LZ4Factory FACTORY = LZ4Factory.fastestInstance();
    private final LZ4Compressor compressor = FACTORY.fastCompressor();
    private final LZ4SafeDecompressor decompressor = FACTORY.safeDecompressor();

    @Override
    public int maxCompressedLength(int rawLength) {
        return compressor.maxCompressedLength(rawLength);
    }

    @Override
    public int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff) {
        return compressor.compress(src, srcOff, srcLen, dst, dstOff, dst.length - dstOff);
    }

    @Override
    public void decompress(ByteBuffer src, byte[] dst, int rawLength) {
        int n;
        try {
            n = decompressor.decompress(src, src.position(), src.remaining(), ByteBuffer.wrap(dst), 0, rawLength);
        } catch (LZ4Exception e) {
            throw new IllegalArgumentException("lz4: " + e.getMessage(), e);
        }
        if (n != rawLength) throw new IllegalArgumentException("lz4: " + n + " bytes, expected " + rawLength);
    }
}
