package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HybridLogicalClockTest {
    @Test
    void strictlyIncreasingEvenWhenThePhysicalClockStandsStillOrGoesBack() {
        AtomicLong physical = new AtomicLong(1_000_000);
        HybridLogicalClock c = new HybridLogicalClock(physical::get);
        long prev = c.next();
        for (int i = 0; i < 1000; i++) {
            if (i % 100 == 0) physical.addAndGet(-500); // clock stepped back
            long t = c.next();
            assertThat(t).isGreaterThan(prev);
            prev = t;
        }
    }

    @Test
    void followsThePhysicalClockWhenItIsAhead() {
        AtomicLong physical = new AtomicLong(5_000_000);
        HybridLogicalClock c = new HybridLogicalClock(physical::get);
        assertThat(c.next()).isEqualTo(5_000_000);
        physical.set(9_000_000);
        assertThat(c.next()).isEqualTo(9_000_000);
    }

    @Test
    void nextIsAboveEveryObservedTimestamp() {
        AtomicLong physical = new AtomicLong(1_000);
        HybridLogicalClock c = new HybridLogicalClock(physical::get);
        c.observe(77_000_000);
        assertThat(c.next()).isEqualTo(77_000_001);
        c.observe(5); // an older observation changes nothing
        assertThat(c.next()).isEqualTo(77_000_002);
    }

    @Test
    void twoClocksOrderWritesHandedFromOneToTheOtherWithoutObservingIt() {
        // Two nodes on one machine: the second stamps after the first, within the same microsecond tick
        // at most; with the real system clock the second stamp must not be below the first.
        HybridLogicalClock a = new HybridLogicalClock();
        HybridLogicalClock b = new HybridLogicalClock();
        int wrong = 0;
        for (int i = 0; i < 10_000; i++) {
            long t1 = a.next();
            long t2 = b.next();
            if (t2 < t1) wrong++;
            b.observe(t2); // keep b honest only with itself
        }
        // t2 == t1 is possible within one microsecond; strictly below would need the clock to go back
        assertThat(wrong).isZero();
    }

    @Test
    void uniqueUnderConcurrency() throws Exception {
        HybridLogicalClock c = new HybridLogicalClock();
        ConcurrentHashMap<Long, Boolean> seen = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                long prev = 0;
                for (int i = 0; i < 50_000; i++) {
                    long v = c.next();
                    assertThat(v).isGreaterThan(prev);
                    prev = v;
                    assertThat(seen.putIfAbsent(v, true)).isNull();
                }
            }));
        }
        for (Thread t : threads) t.join();
        assertThat(seen).hasSize(200_000);
    }
}
