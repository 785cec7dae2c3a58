package dht.storage;

import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Zstandard frames through zstd-jni, at level {@link #LEVEL}. A context holds native memory that
 * only {@code close} frees (no cleaner), so contexts are pooled here rather than kept per thread:
 * reads may run on virtual threads, each of which would leak its own. The pools grow to the
 * greatest number of calls at once and are kept for the life of the process.
 */
final class ZstdCodec implements BlockCodec {
    /** zstd's own default level; the figures in docs/benchmarks.md, "Block compression", are at it. */
    static final int LEVEL = 3;
    private final ConcurrentLinkedQueue<ZstdCompressCtx> compressors = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<ZstdDecompressCtx> decompressors = new ConcurrentLinkedQueue<>();

    @Override
    public int maxCompressedLength(int rawLength) {
        return (int) com.github.luben.zstd.Zstd.compressBound(rawLength);
    }

    @Override
    public int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff) {
        ZstdCompressCtx ctx = compressors.poll();
        if (ctx == null) ctx = new ZstdCompressCtx().setLevel(LEVEL).setChecksum(false);
        try {
            return ctx.compressByteArray(dst, dstOff, dst.length - dstOff, src, srcOff, srcLen);
        } finally {
            compressors.add(ctx);
        }
    }

    @Override
    public void decompress(ByteBuffer src, byte[] dst, int rawLength) {
        ZstdDecompressCtx ctx = decompressors.poll();
        if (ctx == null) ctx = new ZstdDecompressCtx();
        int n;
        try {
            if (src.isDirect()) {
                n = ctx.decompressDirectByteBufferToByteArray(dst, 0, rawLength, src, src.position(), src.remaining());
            } else {
                n = ctx.decompressByteArray(dst, 0, rawLength, src.array(), src.arrayOffset() + src.position(), src.remaining());
            }
        } catch (ZstdException e) {
            throw new IllegalArgumentException("zstd: " + e.getMessage(), e);
        } finally {
            decompressors.add(ctx);
        }
        if (n != rawLength) throw new IllegalArgumentException("zstd: " + n + " bytes, expected " + rawLength);
    }
}
