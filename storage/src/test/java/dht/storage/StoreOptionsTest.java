package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongUnaryOperator;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class StoreOptionsTest {
    private final StoreOptions base = StoreOptions.defaults();
    private final LongUnaryOperator toMillis = t -> t / 1000;
    private final StorageFiles files = new FaultyFiles();

    /** Each wither, named by the components it must change, with a value unlike the default. */
    private final Map<String, UnaryOperator<StoreOptions>> withers = Map.ofEntries(
            Map.entry("syncPolicy", o -> o.withSyncPolicy(SyncPolicy.PERIODIC)),
            Map.entry("syncIntervalMillis", o -> o.withSyncIntervalMillis(7)),
            Map.entry("memtableBytes", o -> o.withMemtableBytes(4096)),
            Map.entry("maxImmutableMemtables", o -> o.withMaxImmutableMemtables(5)),
            Map.entry("bloomBitsPerKey", o -> o.withBloomBitsPerKey(3)),
            Map.entry("blockSize", o -> o.withBlockSize(512)),
            Map.entry("tombstoneGrace,timestampMillis", o -> o.withTombstoneGrace(Duration.ofSeconds(3), toMillis)),
            Map.entry("compactionMinTables,slowdownTables", o -> o.withCompaction(6, 60)),
            Map.entry("compactionBytesPerSecond", o -> o.withCompactionBytesPerSecond(1234)),
            Map.entry("files", o -> o.withFiles(files)),
            Map.entry("flushJitter", o -> o.withFlushJitter(0.25)),
            Map.entry("backgroundPriority", o -> o.withBackgroundPriority(BackgroundPriority.LOW)),
            Map.entry("yieldEveryEntries", o -> o.withYieldEveryEntries(99)),
            Map.entry("acceptMissingTables", o -> o.withMissingTablesAccepted(true)),
            Map.entry("compression", o -> o.withCompression(Compression.ZSTD)),
            Map.entry("purgeHorizon", o -> o.withPurgeHorizon(() -> 42)));

    @Test
    void eachWitherChangesItsOwnComponentsAndKeepsEveryOther() throws Exception {
        List<String> covered = new ArrayList<>();
        for (var e : withers.entrySet()) {
            List<String> changed = List.of(e.getKey().split(","));
            covered.addAll(changed);
            StoreOptions after = e.getValue().apply(base);
            for (RecordComponent c : StoreOptions.class.getRecordComponents()) {
                Object before = c.getAccessor().invoke(base);
                Object now = c.getAccessor().invoke(after);
                if (changed.contains(c.getName())) {
                    assertThat(now).as("%s changes %s", e.getKey(), c.getName()).isNotEqualTo(before);
                } else {
                    assertThat(now).as("%s keeps %s", e.getKey(), c.getName()).isEqualTo(before);
                }
            }
        }
        List<String> all = new ArrayList<>();
        for (RecordComponent c : StoreOptions.class.getRecordComponents()) all.add(c.getName());
        assertThat(covered).as("every option has a wither").containsExactlyInAnyOrderElementsOf(all);
    }

    @Test
    void aWitherThatBreaksAnInvariantIsRefused() {
        assertThatThrownBy(() -> base.withMemtableBytes(10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> base.withCompaction(8, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> base.withFlushJitter(0.9)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> base.withFiles(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
