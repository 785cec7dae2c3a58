package dht.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The purge horizon ({@link StoreOptions#purgeHorizon}): a compaction forgets a tombstone, or a
 * value expired past the grace, only when its timestamp is before both the grace and the horizon.
 * A scan shows a kept tombstone as {@code key-} and a forgotten one not at all.
 */
class PurgeHorizonTest {
    private static final long HOUR = 3_600_000L;

    @TempDir
    Path dir;

    private static byte[] b(String s) { return s.getBytes(UTF_8); }

    private static List<String> scan(Store s) throws IOException {
        return LsmStoreTest.keys(s.scan(new byte[0], null));
    }

    /** Tombstones at now - 3 h, 2 h and 1 h, values expired 2 days ago written then too, and a live value. */
    private static void writeDeletesAndExpiredValues(LsmStore s, long now) throws IOException {
        s.write(List.of(
                Entry.tombstone(b("d3"), now - 3 * HOUR),
                Entry.tombstone(b("d2"), now - 2 * HOUR),
                Entry.tombstone(b("d1"), now - HOUR),
                Entry.value(b("e3"), b("v"), now - 3 * HOUR, now - 48 * HOUR),
                Entry.value(b("e1"), b("v"), now - HOUR, now - 48 * HOUR),
                Entry.value(b("live"), b("v"), now - 3 * HOUR)));
        s.flush();
    }

    @Test
    void onlyTombstonesAndExpiredValuesBeforeTheHorizonAreForgotten() throws IOException {
        long now = System.currentTimeMillis();
        AtomicLong horizon = new AtomicLong(now - 150 * 60_000L); // between the 3 h and the 2 h ones
        AtomicInteger asked = new AtomicInteger();
        StoreOptions o = StoreOptions.defaults().withTombstoneGrace(Duration.ofMinutes(30), t -> t)
                .withPurgeHorizon(() -> {
                    asked.incrementAndGet();
                    return horizon.get();
                });
        try (LsmStore s = LsmStore.open(dir, o)) {
            writeDeletesAndExpiredValues(s, now);
            s.compact();
            assertThat(asked.get()).as("asked at the compaction's start").isEqualTo(1);
            // e1 expired past the grace: a tombstone now, kept like d1 because the horizon is before it
            assertThat(scan(s)).containsExactly("d1-", "d2-", "e1-", "live=v");

            horizon.set(now - 90 * 60_000L); // between the 2 h and the 1 h ones
            s.compact();
            assertThat(scan(s)).containsExactly("d1-", "e1-", "live=v");

            horizon.set(Long.MAX_VALUE); // no limit: the grace (30 min) alone decides
            s.compact();
            assertThat(scan(s)).containsExactly("live=v");
        }
    }

    @Test
    void aHorizonAtTheStartOfTimeKeepsEveryTombstone() throws IOException {
        long now = System.currentTimeMillis();
        StoreOptions o = StoreOptions.defaults().withTombstoneGrace(Duration.ZERO, t -> t)
                .withPurgeHorizon(() -> Long.MIN_VALUE);
        try (LsmStore s = LsmStore.open(dir, o)) {
            writeDeletesAndExpiredValues(s, now);
            s.compact();
            assertThat(scan(s)).containsExactly("d1-", "d2-", "d3-", "e1-", "e3-", "live=v");
            assertThat(s.get(b("e3")).isTombstone()).isTrue();
        }
    }

    @Test
    void theGraceStillHoldsWhenTheHorizonIsLater() throws IOException {
        long now = System.currentTimeMillis();
        StoreOptions o = StoreOptions.defaults().withTombstoneGrace(Duration.ofMinutes(150), t -> t)
                .withPurgeHorizon(() -> now + HOUR);
        try (LsmStore s = LsmStore.open(dir, o)) {
            writeDeletesAndExpiredValues(s, now);
            s.compact();
            assertThat(scan(s)).containsExactly("d1-", "d2-", "e1-", "live=v");
        }
    }

    @Test
    void theHorizonIsComparedWithTheTimestampMappedToMillis() throws IOException {
        long now = System.currentTimeMillis();
        // timestamps in microseconds, as a cluster node writes them
        StoreOptions o = StoreOptions.defaults().withTombstoneGrace(Duration.ZERO, t -> t / 1000)
                .withPurgeHorizon(() -> now - 90 * 60_000L);
        try (LsmStore s = LsmStore.open(dir, o)) {
            s.write(List.of(Entry.tombstone(b("old"), (now - 2 * HOUR) * 1000), Entry.tombstone(b("new"), (now - HOUR) * 1000)));
            s.flush();
            s.compact();
            assertThat(scan(s)).containsExactly("new-");
        }
    }
}
