package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Comparing a key with bytes in a table's segment orders exactly as unsigned byte arrays do. */
class BytesTest {
    @Test
    void comparingWithSegmentBytesAgreesWithUnsignedArrayOrder() {
        SplittableRandom random = new SplittableRandom(42);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(64);
            for (int i = 0; i < 20_000; i++) {
                byte[] key = randomBytes(random);
                byte[] other = random.nextInt(4) == 0 ? prefixOrExtension(key, random) : randomBytes(random);
                long off = random.nextInt(64 - other.length + 1);
                MemorySegment.copy(other, 0, seg, ValueLayout.JAVA_BYTE, off, other.length);

                int expected = Integer.signum(Arrays.compareUnsigned(key, other));
                assertThat(Integer.signum(Bytes.compare(key, seg, off, other.length)))
                        .as("%s vs %s", Arrays.toString(key), Arrays.toString(other)).isEqualTo(expected);
                assertThat(Integer.signum(Bytes.compare(MemorySegment.ofArray(key), seg, off, other.length)))
                        .as("wrapped once: %s vs %s", Arrays.toString(key), Arrays.toString(other)).isEqualTo(expected);
            }
        }
    }

    /** Short keys over few byte values, high bytes included, so that ties, prefixes and sign matter. */
    private static byte[] randomBytes(SplittableRandom random) {
        byte[] b = new byte[random.nextInt(6)];
        byte[] alphabet = {0, 1, 0x7f, (byte) 0x80, (byte) 0xff};
        for (int i = 0; i < b.length; i++) b[i] = alphabet[random.nextInt(alphabet.length)];
        return b;
    }

    private static byte[] prefixOrExtension(byte[] key, SplittableRandom random) {
        int n = Math.max(0, key.length + random.nextInt(-2, 3));
        byte[] b = Arrays.copyOf(key, n);
        for (int i = key.length; i < n; i++) b[i] = (byte) random.nextInt(256);
        return b;
    }
}
