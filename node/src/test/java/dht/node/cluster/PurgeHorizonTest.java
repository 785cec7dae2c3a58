package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The purge horizon's computation, on a clock the test moves (slack 5 s). */
class PurgeHorizonTest {
    private static final String A = "http://a";
    private static final String B = "http://b";
    private static final String C = "http://c";
    private static final long SLACK = 5_000;
    private static final long DAY = 86_400_000L;

    private final AtomicLong now = new AtomicLong(1_000_000_000_000L);
    private final PurgeHorizon h = new PurgeHorizon(A, List.of(A, B, C), Duration.ofMillis(SLACK), now::get);

    /** What a compaction starting now would purge before, with a one-day grace: as the store computes it. */
    private long purgeBefore() {
        return Math.min(now.get() - DAY, h.getAsLong());
    }

    @Test
    void aSingleNodeHasNoLimitBeyondTheGrace() {
        PurgeHorizon alone = new PurgeHorizon(A, List.of(A), Duration.ofMillis(SLACK), now::get);
        assertThat(alone.getAsLong()).isEqualTo(Long.MAX_VALUE);
        assertThat(alone.isLate(0, now.get())).as("no peer to miss a late write").isFalse();
    }

    @Test
    void aPeerNeverExchangedWithPurgesNothing() {
        assertThat(h.getAsLong()).isEqualTo(Long.MIN_VALUE);
        h.exchangeCompleted(B, now.get());
        now.addAndGet(3 * DAY);
        assertThat(h.getAsLong()).as("c never exchanged with").isEqualTo(Long.MIN_VALUE);
        assertThat(h.coveredFrom()).containsEntry(B, now.get() - 3 * DAY).containsEntry(C, 0L);
    }

    @Test
    void theHorizonIsTheOldestPeersScanStartLessTheSlack() {
        long t0 = now.get();
        h.exchangeCompleted(B, t0);
        h.exchangeCompleted(C, t0 + 1_000);
        assertThat(h.getAsLong()).isEqualTo(t0 - SLACK);
        h.exchangeCompleted(B, t0 + 60_000);
        assertThat(h.getAsLong()).isEqualTo(t0 + 1_000 - SLACK);
        h.exchangeCompleted(C, t0 + 500); // an older scan finishing late never moves it back
        assertThat(h.getAsLong()).isEqualTo(t0 + 1_000 - SLACK);
    }

    @Test
    void aPeerDownForLongerThanTheGraceBlocksEveryPurgeAfterItsLastExchange() {
        long lastWithC = now.get();
        h.exchangeCompleted(B, lastWithC);
        h.exchangeCompleted(C, lastWithC);
        // c goes down; b keeps exchanging every minute for three days
        for (int minute = 1; minute <= 3 * 24 * 60; minute++) {
            now.addAndGet(60_000);
            h.exchangeCompleted(B, now.get());
        }
        assertThat(now.get() - DAY).as("the grace alone would purge up to two days after c went down")
                .isGreaterThan(lastWithC + DAY);
        assertThat(purgeBefore()).isEqualTo(lastWithC - SLACK);
        // c back: one full exchange and everything up to its scan may go
        h.exchangeCompleted(C, now.get());
        assertThat(purgeBefore()).isEqualTo(now.get() - DAY);
    }

    @Test
    void aWriteArrivingLateHoldsTheHorizonAtItsTimestampUntilEveryPeerScannedAfterIt() {
        long t0 = now.get();
        h.exchangeCompleted(B, t0);
        h.exchangeCompleted(C, t0);
        now.addAndGet(10_000);
        long old = t0 - DAY; // e.g. a tombstone a peer's anti-entropy hands over a day after the delete
        assertThat(h.isLate(old, now.get())).isTrue();
        assertThat(h.isLate(now.get() - SLACK + 1, now.get())).as("within the slack: on time").isFalse();
        h.lateWriteStarting(old);
        assertThat(h.getAsLong()).as("while it is being written").isEqualTo(old);
        h.lateWriteEnded(old);
        long arrived = now.get();
        assertThat(h.getAsLong()).isEqualTo(old);
        now.addAndGet(60_000);
        h.exchangeCompleted(B, now.get());
        assertThat(h.getAsLong()).as("c has not scanned since it arrived").isEqualTo(old);
        h.exchangeCompleted(C, arrived); // a scan in the same second as the arrival may have missed it
        assertThat(h.getAsLong()).isEqualTo(old);
        h.exchangeCompleted(C, now.get());
        assertThat(h.getAsLong()).isEqualTo(now.get() - SLACK);
    }

    @Test
    void overlappingLateWritesEachHoldTheHorizon() {
        h.exchangeCompleted(B, now.get());
        h.exchangeCompleted(C, now.get());
        h.lateWriteStarting(100);
        h.lateWriteStarting(100);
        h.lateWriteStarting(200);
        h.lateWriteEnded(100);
        assertThat(h.getAsLong()).isEqualTo(100);
        now.addAndGet(10_000);
        h.exchangeCompleted(B, now.get());
        h.exchangeCompleted(C, now.get());
        assertThat(h.getAsLong()).as("one write stamped 100 still under way").isEqualTo(100);
        h.lateWriteEnded(100);
        h.lateWriteEnded(200);
        assertThat(h.getAsLong()).isEqualTo(100);
        now.addAndGet(10_000);
        h.exchangeCompleted(B, now.get());
        h.exchangeCompleted(C, now.get());
        assertThat(h.getAsLong()).isEqualTo(now.get() - SLACK);
    }

    @Test
    void onlyPeersCount() {
        assertThatThrownBy(() -> h.exchangeCompleted(A, now.get())).isInstanceOf(IllegalArgumentException.class);
    }
}
