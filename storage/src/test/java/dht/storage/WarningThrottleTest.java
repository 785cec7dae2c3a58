package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WarningThrottleTest {
    @Test
    void theFirstOccurrenceIsLoggedAtOnceAndTheNextLineCountsThoseHeldBack() throws InterruptedException {
        WarningThrottle t = new WarningThrottle(200_000_000L);
        assertThat(t.occurred()).isEqualTo(1);
        assertThat(t.occurred()).isZero();
        assertThat(t.allow()).isFalse();
        Thread.sleep(250);
        assertThat(t.occurred()).as("two held back, and this one").isEqualTo(3);
        assertThat(t.occurred()).isZero();
    }
}
