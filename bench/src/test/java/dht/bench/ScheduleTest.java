package dht.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ScheduleTest {
    @Test
    void intendedTimesFollowTheRateWithoutDrift() {
        Schedule s = new Schedule(1_000, 3.0); // 333,333,333.33 ns apart
        long first = s.next();
        assertThat(first).isEqualTo(1_000);
        assertThat(s.next()).isEqualTo(1_000 + 333_333_333);
        long last = 0;
        for (int i = 2; i < 3_000_001; i++) {
            last = s.next();
        }
        // after 3,000,000 intervals of 1/3 s: exactly 1,000,000 s later, not off by accumulated rounding
        assertThat(last).isEqualTo(1_000 + 1_000_000L * 1_000_000_000L);
        assertThat(s.issued()).isEqualTo(3_000_001);
    }

    @Test
    void doesNotWaitForAnswers() {
        // the schedule is a pure function of n: a late caller gets past times, to send at once
        Schedule s = new Schedule(0, 1000);
        for (int i = 0; i < 10; i++) {
            assertThat(s.next()).isEqualTo(i * 1_000_000L);
        }
    }

    @Test
    void countsDueRequests() {
        Schedule s = new Schedule(0, 1000);
        assertThat(s.dueBefore(0)).isZero();
        assertThat(s.dueBefore(1)).isEqualTo(1);
        assertThat(s.dueBefore(1_000_000_000L)).isEqualTo(1000);
        assertThat(s.dueBefore(1_000_000_001L)).isEqualTo(1001);
    }

    @Test
    void rejectsNonPositiveRate() {
        assertThatThrownBy(() -> new Schedule(0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Schedule(0, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }
}
