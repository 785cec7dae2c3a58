package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LsmStore#purge}: every version of the keys it drops is gone, with no tombstone, across reopen; the rest stay. */
class PurgeTest {
    @TempDir
    Path dir;

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void droppedKeysLeaveNoVersionAndNoTombstone() throws Exception {
        StoreOptions o = StoreOptions.defaults().withMemtableBytes(64 << 10).withBlockSize(512);
        try (LsmStore s = LsmStore.open(dir, o)) {
            for (int i = 0; i < 2000; i++) s.put(b("k" + i), b("old" + i), 1);
            s.flush();
            for (int i = 0; i < 2000; i += 3) s.put(b("k" + i), b("new" + i), 2); // a second version, in the memtable
            s.delete(b("k1"), 3);
            long dropped = s.purge(e -> new String(e.key(), StandardCharsets.UTF_8).hashCode() % 2 == 0);
            assertThat(dropped).isBetween(800L, 1200L);
            check(s, dropped);
        }
        try (LsmStore s = LsmStore.open(dir, o)) {
            check(s, -1);
        }
    }

    private static void check(LsmStore s, long dropped) throws Exception {
        long kept = 0;
        for (int i = 0; i < 2000; i++) {
            String k = "k" + i;
            Entry e = s.get(b(k));
            if (k.hashCode() % 2 == 0) {
                assertThat(e).as(k).isNull();
            } else if (i == 1) {
                assertThat(e.isTombstone()).isTrue();
            } else {
                assertThat(new String(e.value(), StandardCharsets.UTF_8)).isEqualTo((i % 3 == 0 ? "new" : "old") + i);
                kept++;
            }
        }
        if (dropped >= 0) assertThat(kept + 1 + dropped).isEqualTo(2000);
        try (CloseableIterator<Entry> it = s.scan(b("k"), null)) {
            while (it.hasNext()) assertThat(new String(it.next().key(), StandardCharsets.UTF_8).hashCode() % 2).isNotEqualTo(0);
        }
    }

    @Test
    void theDropIsDecidedByEachKeysNewestVersionAndTakesEveryVersion() throws Exception {
        StoreOptions o = StoreOptions.defaults().withMemtableBytes(64 << 10).withBlockSize(512);
        try (LsmStore s = LsmStore.open(dir, o)) {
            // "few": an old version written for 5 copies, the newest for 2; "many": the other way round
            s.write(java.util.List.of(Entry.value(b("few"), b("old"), 1, 0).withCopies(5),
                    Entry.value(b("many"), b("old"), 1, 0).withCopies(2)));
            s.flush();
            s.write(java.util.List.of(Entry.value(b("few"), b("new"), 2, 0).withCopies(2),
                    Entry.value(b("many"), b("new"), 2, 0).withCopies(5)));
            java.util.List<String> asked = new java.util.ArrayList<>();
            long dropped = s.purge(e -> {
                asked.add(new String(e.key(), StandardCharsets.UTF_8) + "/" + e.copies());
                return e.copies() < 3;
            });
            assertThat(asked).containsExactly("few/2", "many/5");
            assertThat(dropped).isEqualTo(1);
            assertThat(s.get(b("few"))).as("no older version comes back").isNull();
            assertThat(new String(s.get(b("many")).value(), StandardCharsets.UTF_8)).isEqualTo("new");
        }
    }
}
