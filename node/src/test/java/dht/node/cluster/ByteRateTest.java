package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The budget's waits, on a clock the test moves: a flat rate, and a ramp that starts each run of work slowly. */
class ByteRateTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MIB = 1 << 20;
    private final AtomicLong now = new AtomicLong(5 * SECOND);

    @Test
    void aFlatBudgetMakesTheSpenderWaitForWhatItRunsAhead() {
        ByteRate rate = new ByteRate(MIB, 0, now::get);
        assertThat(rate.reserve(MIB)).isEqualTo(SECOND);
        assertThat(rate.reserve(MIB)).as("queued behind the first").isEqualTo(2 * SECOND);
        now.addAndGet(10 * SECOND);
        assertThat(rate.reserve(MIB)).as("an idle budget banks a tenth of a second").isEqualTo(SECOND - SECOND / 10);
    }

    @Test
    void aRampingBudgetStartsAtAThirtySecondOfItsRateAndReachesAllOfItOverTheRamp() {
        ByteRate rate = new ByteRate(32 * MIB, 20 * SECOND, now::get);
        assertThat(rate.reserve(MIB)).as("the first spend: 1 MiB/s").isEqualTo(SECOND);
        now.addAndGet(5 * SECOND);
        rate.reserve(1);
        now.addAndGet(5 * SECOND);
        // halfway: 16 MiB/s, and the credit of a tenth of a second
        assertThat(rate.reserve(16 * MIB)).isEqualTo(SECOND - SECOND / 10);
        now.addAndGet(9 * SECOND);
        rate.reserve(1);
        now.addAndGet(9 * SECOND);
        assertThat(rate.reserve(32 * MIB)).as("the whole rate once the ramp is over").isEqualTo(SECOND - SECOND / 10);
        now.addAndGet(11 * SECOND);
        assertThat(rate.reserve(MIB)).as("a new run once the budget was unused for 10 s starts slowly again")
                .isEqualTo(SECOND - SECOND / 10);
    }

    @Test
    void noLimitNeverWaits() {
        ByteRate rate = new ByteRate(0, 20 * SECOND, now::get);
        assertThat(rate.reserve(1L << 40)).isZero();
    }

    @Test
    void aSlowStartIsNotMistakenForIdleness() {
        // 64 MiB/s starts at 2 MiB/s: a first spend of 32 MiB takes 16 s, longer than the idle time
        ByteRate rate = new ByteRate(64 * MIB, 20 * SECOND, now::get);
        assertThat(rate.reserve(32 * MIB)).isEqualTo(16 * SECOND);
        now.addAndGet(16 * SECOND);
        // the ramp went on meanwhile: 16 s of 20, 51.2 MiB/s
        assertThat(rate.reserve(64 * MIB)).isEqualTo(1_250_000_000L);
    }

    @Test
    void aBudgetOfAMebibyteASecondOrLessDoesNotRamp() {
        ByteRate rate = new ByteRate(MIB, 20 * SECOND, now::get);
        assertThat(rate.reserve(MIB)).isEqualTo(SECOND);
        ByteRate two = new ByteRate(2 * MIB, 20 * SECOND, now::get);
        assertThat(two.reserve(MIB)).as("from 1 MiB/s, not a 32nd of 2").isEqualTo(SECOND);
    }
}
