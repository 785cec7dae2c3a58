package dht.bench;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Chooses key indexes in [0, size). Implementations are safe to share between connections:
 * randomness comes from the caller's own seeded generator, and the sequential counter is atomic,
 * so that a run with one seed is repeatable and sequential keys are unique across connections.
 */
public interface KeyDistribution {
    long next(SplittableRandom random);

    long size();

    enum Kind { sequential, uniform, zipfian }

    static KeyDistribution of(Kind kind, long size, long first) {
        if (size <= 0) {
            throw new IllegalArgumentException("key space must be positive: " + size);
        }
        return switch (kind) {
            case sequential -> new Sequential(size, first);
            case uniform -> new Uniform(size);
            case zipfian -> new Zipfian(size, Zipfian.DEFAULT_THETA);
        };
    }

    /** 0, 1, 2, ... wrapping at size: with one pass over size keys, every key exactly once. */
    final class Sequential implements KeyDistribution {
        private final long size;
        private final AtomicLong counter;

        Sequential(long size, long first) {
            this.size = size;
            this.counter = new AtomicLong(first);
        }

        @Override
        public long next(SplittableRandom random) {
            return Math.floorMod(counter.getAndIncrement(), size);
        }

        @Override
        public long size() {
            return size;
        }
    }

    final class Uniform implements KeyDistribution {
        private final long size;

        Uniform(long size) {
            this.size = size;
        }

        @Override
        public long next(SplittableRandom random) {
            return random.nextLong(size);
        }

        @Override
        public long size() {
            return size;
        }
    }

    /**
     * Zipfian over ranks (Gray et al., "Quickly generating billion-record synthetic databases", as
     * in YCSB): rank 0 is the hottest key, P(rank r) proportional to 1/(r+1)^theta. Ranks map to
     * key indexes directly, so the hot keys are the first ones.
     */
    final class Zipfian implements KeyDistribution {
        static final double DEFAULT_THETA = 0.99;
        private final long size;
        private final double theta;
        private final double zetan;
        private final double alpha;
        private final double eta;
        private final double halfPowTheta;

        Zipfian(long size, double theta) {
            this.size = size;
            this.theta = theta;
            this.zetan = zeta(size, theta);
            double zeta2 = zeta(2, theta);
            this.alpha = 1.0 / (1.0 - theta);
            this.eta = (1 - Math.pow(2.0 / size, 1 - theta)) / (1 - zeta2 / zetan);
            this.halfPowTheta = 1 + Math.pow(0.5, theta);
        }

        private static final long EXACT_ZETA_LIMIT = 10_000_000;

        /** Exact sum up to 10^7 terms, then the integral of x^-theta for the tail (error < 1e-7 relative). */
        static double zeta(long n, double theta) {
            long exact = Math.min(n, EXACT_ZETA_LIMIT);
            double sum = 0;
            for (long i = 1; i <= exact; i++) {
                sum += 1 / Math.pow(i, theta);
            }
            if (n > exact) {
                sum += (Math.pow(n + 0.5, 1 - theta) - Math.pow(exact + 0.5, 1 - theta)) / (1 - theta);
            }
            return sum;
        }

        @Override
        public long next(SplittableRandom random) {
            double u = random.nextDouble();
            double uz = u * zetan;
            if (uz < 1.0) {
                return 0;
            }
            if (uz < halfPowTheta) {
                return Math.min(1, size - 1);
            }
            long r = (long) (size * Math.pow(eta * u - eta + 1, alpha));
            return Math.min(Math.max(r, 0), size - 1);
        }

        @Override
        public long size() {
            return size;
        }

        double theta() {
            return theta;
        }
    }
}
