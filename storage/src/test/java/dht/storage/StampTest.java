package dht.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Store#stamp}: the newest version of a key as {@link Store#get} reads it, without the
 * value, wherever the versions are (the memtable, tables, both), whatever they are (values,
 * tombstones, expired values), before and after compaction, and in agreement with {@code get}
 * after random writes that arrive out of order and tie.
 */
class StampTest {
    private static final long HOUR = 3_600_000L;

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    /** A store that forgets no tombstone (the timestamps here are from 1970, past any grace). */
    private LsmStore open(String name) throws IOException {
        return LsmStore.open(dir.resolve(name), StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC)
                .withPurgeHorizon(() -> Long.MIN_VALUE));
    }

    @Test
    void aKeyNeverWrittenHasNoStamp() throws IOException {
        try (LsmStore s = open("absent")) {
            assertThat(s.stamp(b("k"))).isNull();
            s.put(b("other"), b("v"), 5);
            s.flush();
            s.put(b("another"), b("v"), 6);
            assertThat(s.stamp(b("k"))).as("absent from the memtable and the table").isNull();
        }
    }

    @Test
    void aValueInTheMemtableAndInATable() throws IOException {
        try (LsmStore s = open("value")) {
            long expiry = System.currentTimeMillis() + HOUR;
            s.write(List.of(Entry.value(b("k"), b("a large value"), 10, expiry), Entry.value(b("p"), b("v"), 11)));
            assertThat(s.stamp(b("k"))).as("in the memtable").isEqualTo(new Stamp(10, false, expiry));
            assertThat(s.stamp(b("p"))).isEqualTo(new Stamp(11, false, 0));
            s.flush();
            assertThat(s.stamp(b("k"))).as("in a table").isEqualTo(new Stamp(10, false, expiry));
            assertThat(s.stamp(b("p"))).isEqualTo(new Stamp(11, false, 0));
        }
    }

    @Test
    void theNewestVersionWinsWhereverItIsTheMemtableOrATable() throws IOException {
        try (LsmStore s = open("newest")) {
            s.put(b("k"), b("new"), 20);
            s.flush();
            s.put(b("k"), b("old"), 10); // arrives late: the memtable holds an older version than the table
            assertThat(s.stamp(b("k"))).as("the table's newer version").isEqualTo(new Stamp(20, false, 0));
            s.delete(b("k"), 30);
            assertThat(s.stamp(b("k"))).as("the memtable's tombstone").isEqualTo(new Stamp(30, true, 0));
            s.flush();
            assertThat(s.stamp(b("k"))).as("the tombstone in the newest table").isEqualTo(new Stamp(30, true, 0));
            s.compact();
            assertThat(s.stamp(b("k"))).as("after compaction, the tombstone kept").isEqualTo(new Stamp(30, true, 0));
        }
    }

    @Test
    void aTombstoneCompactionForgetsHasNoStamp() throws IOException {
        try (LsmStore s = LsmStore.open(dir.resolve("forgotten"), StoreOptions.defaults())) {
            s.put(b("k"), b("v"), 10);
            s.delete(b("k"), 20); // from 1970: past the grace, and nothing holds the horizon back
            s.flush();
            assertThat(s.stamp(b("k"))).isEqualTo(new Stamp(20, true, 0));
            s.compact();
            assertThat(s.stamp(b("k"))).isNull();
            assertThat(s.get(b("k"))).isNull();
        }
    }

    @Test
    void aTombstoneBeatsAValueOfTheSameTimestampAcrossSources() throws IOException {
        try (LsmStore s = open("tie")) {
            s.delete(b("k"), 10);
            s.flush();
            s.put(b("k"), b("v"), 10);
            assertThat(s.stamp(b("k"))).isEqualTo(new Stamp(10, true, 0)).isEqualTo(Stamp.of(s.get(b("k"))));
        }
    }

    @Test
    void anExpiredValueStampsAsTheTombstoneItReadsAs() throws IOException {
        try (LsmStore s = open("expired")) {
            long past = System.currentTimeMillis() - 1;
            s.write(List.of(Entry.value(b("k"), b("v"), 10, past)));
            assertThat(s.stamp(b("k"))).as("in the memtable").isEqualTo(new Stamp(10, true, 0));
            s.flush();
            assertThat(s.stamp(b("k"))).as("in a table").isEqualTo(new Stamp(10, true, 0));
            s.compact(); // compaction turns it into a tombstone for good
            assertThat(s.stamp(b("k"))).as("after compaction").isEqualTo(new Stamp(10, true, 0));
            assertThat(Stamp.of(s.get(b("k")))).isEqualTo(new Stamp(10, true, 0));
        }
    }

    @Test
    void theDefaultReadsTheEntry() throws IOException {
        try (LsmStore lsm = open("default")) {
            Store plain = new ForwardingStore(lsm) {
                @Override
                public Stamp stamp(byte[] key) throws IOException {
                    return Stamp.of(get(key)); // what Store's default does
                }
            };
            lsm.put(b("k"), b("v"), 7);
            assertThat(plain.stamp(b("k"))).isEqualTo(lsm.stamp(b("k"))).isEqualTo(new Stamp(7, false, 0));
        }
    }

    @Test
    void stampsAgreeWithReadsAfterRandomWritesFlushesAndCompactions() throws IOException {
        for (int seed = 1; seed <= 3; seed++) {
            Random r = new Random(seed);
            try (LsmStore s = LsmStore.open(dir.resolve("random" + seed), StoreOptions.defaults()
                    .withSyncPolicy(SyncPolicy.PERIODIC).withMemtableBytes(64 << 10)
                    .withPurgeHorizon(() -> Long.MIN_VALUE))) {
                int keys = 500;
                for (int round = 0; round < 6; round++) {
                    List<Entry> batch = new ArrayList<>();
                    for (int i = 0; i < 2_000; i++) batch.add(randomEntry(r, keys));
                    s.write(batch);
                    if (round % 2 == 1) s.flush();
                    if (round == 3) s.compact();
                    for (int k = 0; k < keys; k++) {
                        byte[] key = b("key" + k);
                        assertThat(s.stamp(key)).as("key%d, seed %d, round %d", k, seed, round)
                                .isEqualTo(Stamp.of(s.get(key)));
                    }
                }
            }
        }
    }

    /** Timestamps from a small range, so versions arrive out of order and tie. */
    private static Entry randomEntry(Random r, int keys) {
        byte[] key = b("key" + r.nextInt(keys));
        long ts = 1 + r.nextInt(200);
        int kind = r.nextInt(10);
        long now = System.currentTimeMillis();
        if (kind < 2) return Entry.tombstone(key, ts);
        if (kind == 2) return Entry.value(key, b("expired" + ts), ts, now - 1);
        if (kind == 3) return Entry.value(key, b("expiring" + r.nextInt(3)), ts, now + HOUR);
        return Entry.value(key, b("v" + r.nextInt(3)), ts);
    }
}
