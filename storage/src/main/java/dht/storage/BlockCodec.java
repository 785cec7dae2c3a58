package dht.storage;

import java.nio.ByteBuffer;

/**
 * A compression algorithm for data blocks. Implementations are thread-safe and hold no state
 * between calls that a caller can see.
 */
interface BlockCodec {
    /** The most bytes {@link #compress} can produce from {@code rawLength} bytes. */
    int maxCompressedLength(int rawLength);

    /**
     * Compresses {@code src[srcOff, srcOff + srcLen)} into {@code dst} from {@code dstOff} (room
     * for {@link #maxCompressedLength} bytes); returns the compressed length.
     */
    int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff);

    /**
     * Decompresses all of {@code src} (position to limit) into {@code dst[0, rawLength)}. Throws
     * {@link IllegalArgumentException} unless the bytes decompress to exactly {@code rawLength}.
     * Only bytes whose checksum held are passed here: the native decoders are not handed damage.
     */
    void decompress(ByteBuffer src, byte[] dst, int rawLength);
}
