package dht.client;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads an HTTP/1.1 chunked body (RFC 9112, 7.1) one chunk at a time, boundaries kept: a scan
 * sends one entry per chunk, and {@code key \n value} cannot be told apart once chunks are joined.
 * Only one chunk is held at a time, so a scan's memory is bounded by its largest entry.
 *
 * <p>{@link #next()} returns the next chunk's bytes, or null after the terminating zero-size chunk
 * (its trailers read and dropped). A stream that ends before that throws {@link EOFException}: the
 * sender cut the body short.
 */
final class ChunkedBody {
    /** Larger than any entry a node takes (its body limit is an int of bytes). */
    static final long MAX_CHUNK = Integer.MAX_VALUE - 16;
    private static final int MAX_SIZE_LINE = 1024;

    private final InputStream in;
    private boolean ended;

    ChunkedBody(InputStream in) {
        this.in = in;
    }

    byte[] next() throws IOException {
        if (ended) return null;
        String sizeLine = HttpHead.line(in, MAX_SIZE_LINE);
        if (sizeLine == null) throw new EOFException("connection closed before the terminating chunk");
        long size = size(sizeLine);
        if (size == 0) {
            // Trailers, if any, up to the empty line that ends the message.
            String trailer;
            do {
                trailer = HttpHead.line(in, HttpHead.MAX_LINE);
                if (trailer == null) throw new EOFException("connection closed in the trailers");
            } while (!trailer.isEmpty());
            ended = true;
            return null;
        }
        byte[] chunk = in.readNBytes((int) size);
        if (chunk.length < size) throw new EOFException("connection closed within a chunk");
        String end = HttpHead.line(in, 2);
        if (end == null) throw new EOFException("connection closed after a chunk");
        if (!end.isEmpty()) throw new IOException("chunk of " + size + " bytes not followed by CRLF");
        return chunk;
    }

    /** True once the terminating chunk has been read. */
    boolean ended() {
        return ended;
    }

    private static long size(String line) throws IOException {
        int semi = line.indexOf(';'); // chunk extensions carry nothing for us
        String hex = (semi < 0 ? line : line.substring(0, semi)).strip();
        if (hex.isEmpty() || hex.length() > 8) throw new IOException("bad chunk size line: '" + line + "'");
        long size;
        try {
            size = Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            throw new IOException("bad chunk size line: '" + line + "'", e);
        }
        if (size < 0 || size > MAX_CHUNK) throw new IOException("chunk size out of range: " + size);
        return size;
    }
}
