package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The ETA of a move counts versions, not bytes: the sources' sizes are as stored, compressed, and
 * the bytes read from them are not, so a byte ETA showed 0 for most of a move that was still going.
 */
class RebalanceCountsTest {
    private final RebalanceCounts counts = new RebalanceCounts();

    @Test
    void theEtaFollowsTheVersionsReadWhateverTheirBytes() throws Exception {
        counts.active.incrementAndGet();
        counts.begin(1_000, 100); // 1,000 bytes as stored; far more once decompressed
        assertThat(counts.snapshot().get("etaMillis")).as("nothing read yet").isEqualTo(-1);
        for (int i = 0; i < 40; i++) counts.scanned(1_000);
        Thread.sleep(20);
        assertThat(counts.snapshot().get("bytesScanned")).isEqualTo(40_000);
        assertThat(counts.snapshot().get("entriesScanned")).isEqualTo(40);
        assertThat(counts.snapshot().get("totalEntries")).isEqualTo(100);
        assertThat(counts.snapshot().get("etaMillis")).as("60 of 100 versions to go").isPositive();

        for (int i = 0; i < 70; i++) counts.scanned(1_000);
        assertThat(counts.snapshot().get("etaMillis")).as("more read than said: not known").isEqualTo(-1);

        counts.active.decrementAndGet();
        assertThat(counts.snapshot().get("etaMillis")).as("nothing moves").isZero();
    }

    @Test
    void aSecondReadOfTheStoreWhileOneRunsAddsToTheTotals() {
        counts.active.incrementAndGet();
        counts.begin(1_000, 100);
        for (int i = 0; i < 80; i++) counts.scanned(10);
        counts.active.incrementAndGet(); // a second joiner's stream
        counts.more(new dht.storage.StoreStats(0, 1_000, 0, 0, 0, 0, 0, 100));
        for (int i = 0; i < 80; i++) counts.scanned(10);
        assertThat(counts.snapshot().get("totalEntries")).isEqualTo(200);
        assertThat(counts.snapshot().get("etaMillis")).as("160 of 200 read: still known").isNotEqualTo(-1);
    }

    @Test
    void anUnknownTotalHasNoEta() {
        counts.active.incrementAndGet();
        counts.begin(-1, -1);
        counts.scanned(10);
        assertThat(counts.snapshot().get("etaMillis")).isEqualTo(-1);
    }
}
