package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Which writes hold the purge horizon back: a late one does, until every peer's exchange covers
 * it; a late tombstone the stored version already supersedes changes nothing and is dropped.
 */
class LateWriteReportingStoreTest {
    private static final long NOW = 1_000_000_000_000L;
    private static final long HOUR_AGO = NOW - 3_600_000L;

    private final AtomicLong clock = new AtomicLong(NOW);
    private final PurgeHorizon horizon = new PurgeHorizon("http://a", List.of("http://a", "http://b"),
            Duration.ofSeconds(5), clock::get);
    private final MemoryStore memory = new MemoryStore();
    private final LateWriteReportingStore store = new LateWriteReportingStore(memory, horizon);

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Microseconds, as the cluster's clock stamps writes, from epoch milliseconds. */
    private static long micros(long millis) {
        return millis * 1000;
    }

    /** The horizon once b's exchange covers everything up to now: only late writes hold it back. */
    private long horizonAfterExchange() {
        horizon.exchangeCompleted("http://b", NOW);
        return horizon.getAsLong();
    }

    @Test
    void aLateWriteHoldsTheHorizonAtItsTimestamp() throws Exception {
        store.write(List.of(Entry.tombstone(b("k"), micros(HOUR_AGO))));
        assertThat(memory.get(b("k")).isTombstone()).isTrue();
        assertThat(horizonAfterExchange()).isEqualTo(HOUR_AGO);
    }

    @Test
    void aLateTombstoneOlderThanTheStoredVersionIsNeitherWrittenNorTold() throws Exception {
        memory.put(b("v"), b("new"), micros(HOUR_AGO + 10));
        memory.delete(b("t"), micros(HOUR_AGO + 10));
        store.write(List.of(Entry.tombstone(b("v"), micros(HOUR_AGO)), Entry.tombstone(b("t"), micros(HOUR_AGO + 10))));
        store.delete(b("v"), micros(HOUR_AGO + 5));
        assertThat(memory.writeCalls).as("nothing written").isEmpty();
        assertThat(memory.deleteCalls).as("the setup's own delete alone").hasValue(1);
        assertThat(memory.get(b("v")).value()).isEqualTo(b("new"));
        assertThat(memory.get(b("t")).timestamp()).isEqualTo(micros(HOUR_AGO + 10));
        assertThat(horizonAfterExchange()).isEqualTo(NOW - 5_000);
    }

    @Test
    void aLateTombstoneOfTheStoredValuesTimestampIsWrittenAndTold() throws Exception {
        memory.put(b("k"), b("v"), micros(HOUR_AGO));
        store.write(List.of(Entry.tombstone(b("k"), micros(HOUR_AGO)))); // a tombstone wins a tie
        assertThat(memory.get(b("k")).isTombstone()).isTrue();
        assertThat(horizonAfterExchange()).isEqualTo(HOUR_AGO);
    }

    @Test
    void aLateValueIsWrittenAndToldEvenUnderANewerVersion() throws Exception {
        memory.delete(b("k"), micros(HOUR_AGO + 10));
        // the stored tombstone may be forgotten while the value lands: the report keeps it
        store.write(List.of(Entry.value(b("k"), b("old"), micros(HOUR_AGO))));
        assertThat(horizonAfterExchange()).isEqualTo(HOUR_AGO);
    }

    @Test
    void theRestOfABatchIsWrittenAndTold() throws Exception {
        memory.put(b("a"), b("new"), micros(HOUR_AGO + 10));
        store.write(List.of(Entry.tombstone(b("a"), micros(HOUR_AGO)), Entry.tombstone(b("b"), micros(HOUR_AGO + 20)),
                Entry.value(b("c"), b("now"), micros(NOW))));
        assertThat(memory.writeCalls).containsExactly(2);
        assertThat(memory.get(b("b")).isTombstone()).isTrue();
        assertThat(memory.get(b("c")).value()).isEqualTo(b("now"));
        assertThat(horizonAfterExchange()).isEqualTo(HOUR_AGO + 20);
    }
}
