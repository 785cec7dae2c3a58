package dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The scan memory budget: bounded, one oversized block let through alone, everything given back. */
class ScanMemoryTest {
    @Test
    void reservationsStayWithinTheLimitExceptOneOversizedBlockAlone() {
        ScanMemory m = new ScanMemory(1000);
        assertThat(m.tryReserve(600)).isTrue();
        assertThat(m.tryReserve(500)).as("past the limit").isFalse();
        assertThat(m.tryReserve(400)).isTrue();
        assertThat(m.held()).isEqualTo(1000);
        m.release(600);
        m.release(400);
        assertThat(m.held()).isZero();
        assertThat(m.tryReserve(5000)).as("larger than the whole budget, nothing else held").isTrue();
        assertThat(m.tryReserve(1)).isFalse();
        m.release(5000);
        assertThat(m.held()).isZero();
    }

    @Test
    void theBudgetIsAnEighthOfTheHeap() {
        assertThat(ScanMemory.forHeap(128L << 20).limit()).isEqualTo(16L << 20);
    }
}
