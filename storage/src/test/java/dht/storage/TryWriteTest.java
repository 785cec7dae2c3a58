package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LsmStore#tryWrite}: a write that an event loop may make itself. It writes exactly as
 * {@link LsmStore#write} does when nothing has to wait, and otherwise writes nothing and says no:
 * under a per-write fsync, behind another writer, or when the memtable is full.
 */
class TryWriteTest {
    @TempDir
    Path dir;

    private static final StoreOptions PERIODIC = StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC);

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<Entry> one(String key, String value) {
        return List.of(Entry.value(b(key), b(value), 1));
    }

    @Test
    void anIdleStoreTakesTheWritesAndTheyAreInTheLogAfterACrash() throws Exception {
        Path db = dir.resolve("db");
        Path crashed = dir.resolve("crashed");
        try (LsmStore s = LsmStore.open(db, PERIODIC)) {
            assertThat(s.tryWrite(List.of(Entry.value(b("a"), b("1"), 1), Entry.tombstone(b("b"), 2)))).isTrue();
            assertThat(s.get(b("a")).value()).isEqualTo(b("1"));
            assertThat(s.get(b("b")).isTombstone()).isTrue();
            DirectoryCopy.of(db, crashed); // what a SIGKILL leaves: the files as they are, no flush at close
        }
        try (LsmStore s = LsmStore.open(crashed, PERIODIC)) {
            assertThat(s.get(b("a")).value()).isEqualTo(b("1"));
            assertThat(s.get(b("b")).isTombstone()).isTrue();
        }
    }

    @Test
    void underAnFsyncPerWriteItDeclinesAndWritesNothing() throws Exception {
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults().withSyncPolicy(SyncPolicy.EVERY_WRITE))) {
            assertThat(s.tryWrite(one("a", "1"))).isFalse();
            assertThat(s.get(b("a"))).isNull();
        }
    }

    @Test
    void behindAnotherWriterItDeclinesInsteadOfWaiting() throws Exception {
        FaultyFiles ff = new FaultyFiles();
        CountDownLatch inAppend = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (LsmStore s = LsmStore.open(dir, PERIODIC.withFiles(ff))) {
            ff.beforeWrite = p -> {
                if (!p.getFileName().toString().endsWith(".log")) return;
                inAppend.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            Thread leader = Thread.ofPlatform().start(() -> {
                try {
                    s.put(b("slow"), b("1"), 1);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertThat(inAppend.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(s.tryWrite(one("a", "1"))).isFalse();
            ff.beforeWrite = p -> {};
            release.countDown();
            leader.join(10_000);
            assertThat(s.get(b("slow"))).isNotNull();
            assertThat(s.get(b("a"))).isNull();
            assertThat(s.tryWrite(one("a", "1"))).isTrue();
            assertThat(s.get(b("a")).value()).isEqualTo(b("1"));
        }
    }

    @Test
    void aFullMemtableIsLeftToAWriterThatMaySwitchIt() throws Exception {
        try (LsmStore s = LsmStore.open(dir, PERIODIC.withMemtableBytes(32 << 10))) {
            int taken = 0;
            while (taken < 10_000 && s.tryWrite(one("k" + taken, "v".repeat(100)))) taken++;
            assertThat(taken).isBetween(10, 9_999);
            assertThat(s.get(b("k" + taken))).isNull();
            s.write(one("k" + taken, "v")); // switches to a new memtable, as only a waiting writer may
            assertThat(s.tryWrite(one("after", "1"))).isTrue();
            for (int i = 0; i <= taken; i++) assertThat(s.get(b("k" + i))).as("k" + i).isNotNull();
        }
    }
}
