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
        // 64 KiB/s: the first 64 KiB spend takes 32 s at the ramp's floor, longer than the idle time
        ByteRate rate = new ByteRate(64 << 10, 20 * SECOND, now::get);
        assertThat(rate.reserve(64 << 10)).isEqualTo(32 * SECOND);
        now.addAndGet(32 * SECOND);
        assertThat(rate.reserve(64 << 10)).as("the ramp went on meanwhile: the whole rate").isEqualTo(SECOND);
    }
}
