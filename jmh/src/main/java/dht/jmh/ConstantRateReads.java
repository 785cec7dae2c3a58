package dht.jmh;

import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Point reads of uniformly random existing keys at a constant rate: read {@code k} is due at
 * {@code start + k / rate}, and its latency is measured from then (intended time), so a read
 * that waits behind a slow one counts its wait, as a client on a schedule would see it. Several
 * threads take the reads in turn so that reads waiting on the disk overlap.
 */
final class ConstantRateReads {
    /** What a run measured: the reads done, the seconds they took, latencies, and keys not found. */
    record Result(long reads, double seconds, Histogram latencyNanos, long missing) {
        double rate() { return reads / seconds; }
    }

    private ConstantRateReads() {}

    /**
     * Runs {@code rate * seconds} reads from {@code threads} threads; with {@code timeline}, prints
     * a line per second of the reads due in it (count, p99, max), to show when a slow spell was.
     */
    static Result run(KvEngine kv, long keys, int rate, double seconds, int threads, boolean timeline)
            throws InterruptedException {
        long total = (long) (rate * seconds);
        double periodNanos = 1e9 / rate;
        AtomicLong next = new AtomicLong();
        AtomicLong missing = new AtomicLong();
        Recorder recorder = new Recorder(3);
        Recorder perSecond = new Recorder(3);
        long start = System.nanoTime() + 10_000_000;
        Thread[] workers = new Thread[threads];
        IOException[] failure = new IOException[1];
        for (int t = 0; t < threads; t++) {
            SplittableRandom rnd = new SplittableRandom(1000 + t);
            workers[t] = Thread.ofPlatform().name("reader-" + t).start(() -> {
                for (long k; (k = next.getAndIncrement()) < total; ) {
                    long due = start + (long) (k * periodNanos);
                    for (long wait; (wait = due - System.nanoTime()) > 0; ) LockSupport.parkNanos(wait);
                    try {
                        if (!kv.get(Keys.loaded(rnd.nextLong(keys)))) missing.incrementAndGet();
                    } catch (IOException e) {
                        synchronized (failure) {
                            failure[0] = e;
                        }
                        return;
                    }
                    long latency = System.nanoTime() - due;
                    recorder.recordValue(latency);
                    perSecond.recordValue(latency);
                }
            });
        }
        for (int second = 1; timeline && workers[0].isAlive(); second++) {
            long sleep = start + second * 1_000_000_000L - System.nanoTime();
            if (sleep > 0) Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
            Histogram h = perSecond.getIntervalHistogram();
            System.out.printf(java.util.Locale.ROOT, "#   second %d: %d reads done, p99 %.2f ms, max %.2f ms%n", second,
                    h.getTotalCount(), h.getValueAtPercentile(99) / 1e6, h.getMaxValue() / 1e6);
        }
        for (Thread w : workers) w.join();
        double elapsed = (System.nanoTime() - start) / 1e9;
        if (failure[0] != null) throw new IllegalStateException("a read failed", failure[0]);
        return new Result(total, elapsed, recorder.getIntervalHistogram(), missing.get());
    }
}
