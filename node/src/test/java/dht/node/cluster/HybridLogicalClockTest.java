package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
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
        AtomicLong physical = new AtomicLong(76_800_000);
        HybridLogicalClock c = new HybridLogicalClock(physical::get);
        assertThat(c.observe(77_000_000)).as("200 ms ahead: within the offset").isTrue();
        assertThat(c.next()).isEqualTo(77_000_001);
        c.observe(5); // an older observation changes nothing
        assertThat(c.next()).isEqualTo(77_000_002);
    }

    @Test
    void aStoreWithinTheOffsetIsObservedAtStartSoEveryWriteStampedHereIsLater() {
        AtomicLong physical = new AtomicLong(76_800_000);
        HybridLogicalClock c = new HybridLogicalClock(physical::get); // 500 ms offset
        c.startFrom(77_000_000);
        assertThat(c.offReason(List.of())).isNull();
        assertThat(c.next()).isEqualTo(77_000_001);
    }

    @Test
    void aClockBehindItsOwnStoreRefusesClientWritesUntilPhysicalTimeCatchesUp() {
        // A node restarted an hour behind with every peer down hears no clock to compare: what it
        // stored before is the only witness that its clock went back.
        AtomicLong physical = new AtomicLong(3_600_000_000L);
        HybridLogicalClock c = new HybridLogicalClock(physical::get);
        c.startFrom(7_200_000_000L);
        assertThat(c.offReason(List.of("http://peer"))).contains("3600000 ms behind the newest version in its store");
        physical.set(7_199_600_000L); // within the 500 ms offset now
        assertThat(c.offReason(List.of("http://peer"))).isNull();
        assertThat(c.next()).as("later than the stored version").isGreaterThan(7_200_000_000L);
    }

    @Test
    void anEmptyStoreLeavesTheClockAlone() {
        AtomicLong physical = new AtomicLong(5_000_000);
        HybridLogicalClock c = new HybridLogicalClock(physical::get);
        c.startFrom(Long.MIN_VALUE);
        assertThat(c.offReason(List.of())).isNull();
        assertThat(c.next()).isEqualTo(5_000_000);
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

    @Test
    void aTimestampFurtherAheadThanTheMaxOffsetIsRefusedAndDoesNotMoveTheClock() {
        AtomicLong physical = new AtomicLong(1_000_000_000);
        HybridLogicalClock c = new HybridLogicalClock(physical::get, Duration.ofMillis(500));
        assertThat(c.observe(1_000_500_000)).as("exactly the offset ahead").isTrue();
        assertThat(c.behindPeersMillis()).isZero();
        assertThat(c.observe(1_000_500_001)).isFalse();
        assertThat(c.observe(Long.MAX_VALUE)).isFalse();
        assertThat(c.observe(1_000_000_000L + 3_600_000_000L)).as("an hour ahead").isFalse();
        assertThat(c.refused()).isEqualTo(3);
        assertThat(c.behindPeersMillis()).isEqualTo(3_600_000);
        assertThat(c.current()).isEqualTo(1_000_500_000);
        assertThat(c.next()).isEqualTo(1_000_500_001);
        physical.addAndGet(11_000_000);
        assertThat(c.behindPeersMillis()).as("forgotten after 10 s").isZero();
        assertThat(c.observe(1_011_400_000)).as("acceptable once physical time has moved on").isTrue();
    }

    @Test
    void aZeroOffsetAcceptsNothingAheadOfPhysicalTime() {
        AtomicLong physical = new AtomicLong(5_000);
        HybridLogicalClock c = new HybridLogicalClock(physical::get, Duration.ZERO);
        assertThat(c.observe(5_000)).isTrue();
        assertThat(c.observe(5_001)).isFalse();
        assertThat(c.acceptable(5_000)).isTrue();
        assertThat(c.acceptable(5_001)).isFalse();
    }

    @Test
    void theClockNeverWrapsAtItsMaximum() {
        AtomicLong physical = new AtomicLong(Long.MAX_VALUE - 3);
        HybridLogicalClock c = new HybridLogicalClock(physical::get);
        long prev = Long.MIN_VALUE;
        for (int i = 0; i < 4; i++) {
            long t = c.next();
            assertThat(t).isGreaterThan(prev);
            prev = t;
        }
        assertThat(prev).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(c::next).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(c::next).as("still refuses").isInstanceOf(IllegalStateException.class);
        assertThat(c.current()).isEqualTo(Long.MAX_VALUE);
        assertThat(c.observe(Long.MAX_VALUE)).isTrue(); // within the (saturated) offset: harmless
    }

    @Test
    void monotonicUnderConcurrentIssuingAndObserving() throws Exception {
        HybridLogicalClock c = new HybridLogicalClock();
        List<Thread> threads = new ArrayList<>();
        java.util.concurrent.atomic.AtomicInteger wrong = new java.util.concurrent.atomic.AtomicInteger();
        for (int t = 0; t < 4; t++) {
            boolean observer = t % 2 == 0;
            threads.add(Thread.ofPlatform().start(() -> {
                long prev = 0;
                for (int i = 0; i < 50_000; i++) {
                    if (observer) {
                        long ahead = c.current() + 100; // well within the offset
                        c.observe(i % 100 == 0 ? Long.MAX_VALUE : ahead);
                    }
                    long v = c.next();
                    if (v <= prev) wrong.incrementAndGet();
                    prev = v;
                }
            }));
        }
        for (Thread t : threads) t.join();
        assertThat(wrong.get()).isZero();
        assertThat(c.current()).isLessThan(HybridLogicalClock.systemMicros().getAsLong() + 500_000 + 400_000);
    }
}
