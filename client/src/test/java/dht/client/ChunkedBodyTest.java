package dht.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The chunked framing of RFC 9112, 7.1, read one chunk at a time. */
class ChunkedBodyTest {
    private static ChunkedBody body(String wire) {
        return new ChunkedBody(new ByteArrayInputStream(wire.getBytes(StandardCharsets.ISO_8859_1)));
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    @Test
    void chunksComeBackWithTheirBoundaries() throws IOException {
        ChunkedBody b = body("3\r\na\nb\r\n5\r\nc\nd\ne\r\n0\r\n\r\n");

        assertThat(text(b.next())).isEqualTo("a\nb");
        assertThat(text(b.next())).isEqualTo("c\nd\ne");
        assertThat(b.next()).isNull();
        assertThat(b.ended()).isTrue();
        assertThat(b.next()).isNull();
    }

    @Test
    void sizesAreHexAndExtensionsAndTrailersAreSkipped() throws IOException {
        ChunkedBody b = body("1A;name=value\r\n" + "x".repeat(26) + "\r\n0\r\nX-Trailer: 1\r\n\r\n");

        assertThat(b.next()).hasSize(26);
        assertThat(b.next()).isNull();
    }

    @Test
    void aBodyEndingBeforeItsTerminatingChunkIsCutShort() throws IOException {
        ChunkedBody b = body("3\r\nabc\r\n");

        assertThat(text(b.next())).isEqualTo("abc");
        assertThatThrownBy(b::next).isInstanceOf(EOFException.class);
    }

    @Test
    void aBodyEndingWithinAChunkIsCutShort() {
        assertThatThrownBy(() -> body("10\r\nabc").next()).isInstanceOf(EOFException.class);
    }

    @Test
    void aMalformedSizeIsRefused() {
        assertThatThrownBy(() -> body("zz\r\n").next()).isInstanceOf(IOException.class).hasMessageContaining("chunk size");
        assertThatThrownBy(() -> body("3\r\nabcX\r\n").next()).isInstanceOf(IOException.class);
    }
}
