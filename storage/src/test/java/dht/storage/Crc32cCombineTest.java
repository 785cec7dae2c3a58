package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class Crc32cCombineTest {
    private static int crc(byte[] b, int from, int to) {
        CRC32C c = new CRC32C();
        c.update(b, from, to - from);
        return (int) c.getValue();
    }

    @Test
    void theCrcOfTwoPartsJoinedComesFromTheirCrcsAndTheSecondLength() {
        SplittableRandom random = new SplittableRandom(7);
        for (int round = 0; round < 500; round++) {
            byte[] data = new byte[random.nextInt(1, 5000)];
            random.nextBytes(data);
            int cut = random.nextInt(data.length + 1);
            assertThat(Crc32cCombine.combine(crc(data, 0, cut), crc(data, cut, data.length), data.length - cut))
                    .as("length %d cut at %d", data.length, cut)
                    .isEqualTo(crc(data, 0, data.length));
        }
    }

    @Test
    void aLongSecondPartToo() {
        byte[] data = new byte[3 << 20];
        new SplittableRandom(11).nextBytes(data);
        assertThat(Crc32cCombine.combine(crc(data, 0, 4), crc(data, 4, data.length), data.length - 4))
                .isEqualTo(crc(data, 0, data.length));
    }
}
