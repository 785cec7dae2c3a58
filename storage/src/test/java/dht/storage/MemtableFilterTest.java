package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class MemtableFilterTest {
    @Test
    void everyAddedKeyIsFoundAndFewOthersAre() {
        // a 16 MiB memtable of 100-byte values holds about 110,000 keys
        MemtableFilter f = new MemtableFilter(16L << 20);
        Random r = new Random(7);
        long[] added = new long[110_000];
        for (int i = 0; i < added.length; i++) {
            added[i] = Bytes.hash(("k" + r.nextLong()).getBytes());
            f.add(added[i]);
        }
        for (long h : added) assertThat(f.mightContain(h)).isTrue();
        int falsePositives = 0;
        int probes = 100_000;
        for (int i = 0; i < probes; i++) if (f.mightContain(Bytes.hash(("absent" + i).getBytes()))) falsePositives++;
        // about 19 bits a key, four probes: 0.1-0.2% expected
        assertThat(falsePositives).as("false positives of %d", probes).isLessThan(probes / 100);
    }

    @Test
    void aMemtableStillFindsEveryKeyWhenItOutgrowsItsFilter() {
        Memtable m = new Memtable(1, MemtableArena.MIN_CHUNK, 1024); // a filter of one block (512 bits), soon all set
        for (int i = 0; i < 5_000; i++) m.put(Entry.value(("k" + i).getBytes(), ("v" + i).getBytes(), i));
        for (int i = 0; i < 5_000; i++) assertThat(m.get(("k" + i).getBytes()).value()).isEqualTo(("v" + i).getBytes());
        assertThat(m.get("absent".getBytes())).isNull();
        m.discard();
    }
}
