package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The ETA of a move counts versions, not bytes: the sources' sizes are as stored, compressed, and
 * the bytes read from them are not, so a byte ETA showed 0 for most of a move that was still going.
 * The figures are the latest change's: a black-box tester read 8,692 of 4,346 versions after a
 * second join, and a member receiving a leave's push showed the join before's "100%, 1,100 keys".
 */
class RebalanceCountsTest {
    private final RebalanceCounts counts = new RebalanceCounts();

    @Test
    void theEtaFollowsTheVersionsReadWhateverTheirBytes() throws Exception {
        counts.active.incrementAndGet();
        counts.begin(7, 1_000, 100); // 1,000 bytes as stored; far more once decompressed
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
        counts.begin(7, 1_000, 100);
        for (int i = 0; i < 80; i++) counts.scanned(10);
        counts.active.incrementAndGet(); // a second joiner's stream
        counts.begin(7, new dht.storage.StoreStats(0, 1_000, 0, 0, 0, 0, 0, 100, Long.MIN_VALUE));
        for (int i = 0; i < 80; i++) counts.scanned(10);
        assertThat(counts.snapshot().get("totalEntries")).isEqualTo(200);
        assertThat(counts.snapshot().get("etaMillis")).as("160 of 200 read: still known").isNotEqualTo(-1);
    }

    @Test
    void anUnknownTotalHasNoEta() {
        counts.active.incrementAndGet();
        counts.begin(7, -1, -1);
        counts.scanned(10);
        assertThat(counts.snapshot().get("etaMillis")).isEqualTo(-1);
    }

    @Test
    void aNewerChangeStartsTheFiguresOverAndTheSameOneAddsUp() {
        counts.active.incrementAndGet();
        counts.begin(7, 1_000, 100);
        for (int i = 0; i < 100; i++) counts.scanned(10);
        counts.keysMoved.addAndGet(25);
        counts.active.decrementAndGet();
        counts.readingAgain(new dht.storage.StoreStats(0, 400, 0, 0, 0, 0, 0, 40, Long.MIN_VALUE)); // the cleanup's push after the join
        counts.keysCleanedUp.addAndGet(3);
        assertThat(counts.snapshot()).as("what moved adds up; what was read is the new read's")
                .containsEntry("keysMoved", 25L).containsEntry("keysCleanedUp", 3L)
                .containsEntry("entriesScanned", 0L).containsEntry("totalEntries", 40L);

        counts.takingPart(9); // a member that only receives the next change's push
        assertThat(counts.snapshot()).containsEntry("keysMoved", 0L).containsEntry("entriesScanned", 0L)
                .containsEntry("keysCleanedUp", 0L).containsEntry("totalEntries", -1L);
        counts.active.incrementAndGet();
        counts.begin(9, 500, 50); // its first move of that change
        assertThat(counts.snapshot()).containsEntry("totalEntries", 50L);
        counts.active.incrementAndGet();
        counts.begin(8, 500, 50); // a stream of an older change, late: starts nothing over, adds no total
        assertThat(counts.snapshot()).containsEntry("totalEntries", 50L);
    }

    /** What a peer's leave or removal pushes here counts for its change only, and shows it arriving for a while. */
    @Test
    void versionsPushedHereCountForTheirChangeAndShowThemArriving() {
        assertThat(counts.movedInWithin(Long.MAX_VALUE, 5)).as("nothing pushed here yet").isFalse();
        counts.takingPart(5);
        counts.movedIn(4, 10, 1_000); // an older change's batch, late
        assertThat(counts.snapshot().get("keysMoved")).isZero();
        counts.movedIn(5, 10, 1_000);
        counts.movedIn(5, 3, 300);
        assertThat(counts.snapshot().get("keysMoved")).isEqualTo(13);
        assertThat(counts.snapshot().get("keysMovedIn")).isEqualTo(13);
        assertThat(counts.snapshot().get("bytesMoved")).isEqualTo(1_300);
        assertThat(counts.movedInWithin(java.util.concurrent.TimeUnit.SECONDS.toNanos(10), 5)).isTrue();
        assertThat(counts.movedInWithin(0, 5)).as("a window that has passed").isFalse();
        assertThat(counts.movedInWithin(Long.MAX_VALUE, 6)).as("the change is over: a newer version is current").isFalse();
        counts.movedIn(6, 2, 200); // a newer change: the figures start over
        assertThat(counts.snapshot().get("keysMovedIn")).isEqualTo(2);
    }
}
