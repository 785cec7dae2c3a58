package dht.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class KeyDistributionTest {
    private static final long SEED = 20261122L;

    @Test
    void sequentialGivesEveryKeyOnceAcrossThreads() throws Exception {
        KeyDistribution d = KeyDistribution.of(KeyDistribution.Kind.sequential, 100_000, 0);
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        ExecutorService ex = Executors.newFixedThreadPool(4);
        for (int t = 0; t < 4; t++) {
            ex.submit(() -> {
                SplittableRandom r = new SplittableRandom(SEED);
                for (int i = 0; i < 25_000; i++) {
                    assertThat(seen.add(d.next(r))).isTrue();
                }
            });
        }
        ex.shutdown();
        assertThat(ex.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(seen).hasSize(100_000);
        assertThat(seen).allMatch(k -> k >= 0 && k < 100_000);
        // then it wraps around
        assertThat(d.next(new SplittableRandom(SEED))).isZero();
    }

    @Test
    void uniformCoversTheSpaceEvenly() {
        int buckets = 10;
        long[] counts = new long[buckets];
        KeyDistribution d = KeyDistribution.of(KeyDistribution.Kind.uniform, 1_000, 0);
        SplittableRandom r = new SplittableRandom(SEED);
        int n = 200_000;
        for (int i = 0; i < n; i++) {
            long k = d.next(r);
            assertThat(k).isBetween(0L, 999L);
            counts[(int) (k / 100)]++;
        }
        for (long c : counts) {
            assertThat(c).as("seed %d", SEED).isBetween(n / buckets * 95 / 100L, n / buckets * 105 / 100L);
        }
    }

    @Test
    void zipfianIsSkewedLikeZipf() {
        long size = 100_000;
        KeyDistribution d = KeyDistribution.of(KeyDistribution.Kind.zipfian, size, 0);
        SplittableRandom r = new SplittableRandom(SEED);
        int n = 1_000_000;
        long[] first = new long[10];
        long top1pct = 0;
        for (int i = 0; i < n; i++) {
            long k = d.next(r);
            assertThat(k).isBetween(0L, size - 1);
            if (k < 10) {
                first[(int) k]++;
            }
            if (k < size / 100) {
                top1pct++;
            }
        }
        double zetan = KeyDistribution.Zipfian.zeta(size, 0.99);
        // P(rank 0) = 1/zeta(n); P(rank 1) = 2^-0.99/zeta(n)
        assertThat(first[0] / (double) n).as("seed %d", SEED).isCloseTo(1 / zetan, org.assertj.core.data.Percentage.withPercentage(5));
        assertThat(first[1] / (double) n).isCloseTo(Math.pow(2, -0.99) / zetan, org.assertj.core.data.Percentage.withPercentage(5));
        // the hottest 1% of keys take well over half of the draws (uniform would give 1%)
        assertThat(top1pct / (double) n).isGreaterThan(0.5);
        // and frequencies fall with rank
        assertThat(first[0]).isGreaterThan(first[1]);
        assertThat(first[1]).isGreaterThan(first[9]);
    }

    @Test
    void zetaTailApproximationMatchesTheExactSum() {
        // the exact loop is capped at 10^7 terms; check the integral tail against a smaller cap
        double exact = 0;
        for (long i = 1; i <= 20_000_000L; i++) {
            exact += 1 / Math.pow(i, 0.99);
        }
        assertThat(KeyDistribution.Zipfian.zeta(20_000_000L, 0.99)).isCloseTo(exact, org.assertj.core.data.Percentage.withPercentage(0.001));
    }

    @Test
    void sameSeedSameKeys() {
        KeyDistribution d = KeyDistribution.of(KeyDistribution.Kind.zipfian, 1000, 0);
        SplittableRandom a = new SplittableRandom(7);
        SplittableRandom b = new SplittableRandom(7);
        for (int i = 0; i < 1000; i++) {
            assertThat(d.next(a)).isEqualTo(d.next(b));
        }
    }

    @Test
    void keysSortLikeTheirIndexes() {
        assertThat(Keys.key(42)).isEqualTo("k0000000042");
        assertThat(Keys.key(Keys.MAX_INDEX)).isEqualTo("k9999999999");
        assertThat(Keys.key(9).compareTo(Keys.key(10))).isNegative();
        ByteBuf b = Unpooled.buffer();
        Keys.write(b, 1234567);
        assertThat(b.toString(StandardCharsets.US_ASCII)).isEqualTo(Keys.key(1234567));
    }
}
