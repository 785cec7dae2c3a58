package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The writer's copy of the upper levels answers what a walk of the level would: the last key
 * before any key, whatever prefixes the keys share; and it gives up past its bound.
 */
class MemtableUpperLevelsTest {
    private final List<byte[]> keys = new ArrayList<>(); // a "node" is its index here, plus one (0 is the head)
    private final MemtableUpperLevels upper = new MemtableUpperLevels(500,
            (key, node) -> Bytes.ORDER.compare(key, keys.get((int) node - 1)));

    private static byte[] randomKey(Random r) {
        int kind = r.nextInt(3);
        byte[] k = new byte[kind == 0 ? r.nextInt(9) : 8 + r.nextInt(4)];
        for (int i = 0; i < k.length; i++) k[i] = (byte) (r.nextInt(3) == 0 ? 0 : r.nextInt(3) == 0 ? 0xff : r.nextInt(4));
        if (kind == 2 && k.length >= 8) System.arraycopy("prefix00".getBytes(), 0, k, 0, 8); // all share 8 bytes
        return k;
    }

    @Test
    void theFloorIsTheLastKeyBeforeWhateverPrefixesTheKeysShare() {
        Random r = new Random(7);
        TreeSet<byte[]> model = new TreeSet<>(Bytes.ORDER);
        while (model.size() < 400) {
            byte[] k = randomKey(r);
            if (!model.add(k)) continue;
            keys.add(k);
            upper.add(keys.size(), k, MemtableUpperLevels.prefix(k));
        }
        for (int probe = 0; probe < 20_000; probe++) {
            byte[] k = randomKey(r);
            byte[] before = model.lower(k);
            long floor = upper.floor(k, MemtableUpperLevels.prefix(k), 0);
            if (before == null) assertThat(floor).isZero();
            else assertThat(keys.get((int) floor - 1)).as("floor of %s", java.util.HexFormat.of().formatHex(k)).isEqualTo(before);
        }
        assertThat(upper.usable()).isTrue();
    }

    @Test
    void prefixesOrderAsTheKeysWhereTheyDiffer() {
        Random r = new Random(11);
        for (int i = 0; i < 100_000; i++) {
            byte[] a = randomKey(r);
            byte[] b = randomKey(r);
            int byPrefix = Long.compareUnsigned(MemtableUpperLevels.prefix(a), MemtableUpperLevels.prefix(b));
            if (byPrefix != 0) assertThat(Integer.signum(Bytes.ORDER.compare(a, b))).isEqualTo(byPrefix);
        }
    }

    @Test
    void pastItsBoundItIsDroppedForGood() {
        for (int i = 0; i < 501; i++) {
            byte[] k = String.format("k%05d", i).getBytes();
            keys.add(k);
            upper.add(keys.size(), k, MemtableUpperLevels.prefix(k));
        }
        assertThat(upper.usable()).isFalse();
    }
}
