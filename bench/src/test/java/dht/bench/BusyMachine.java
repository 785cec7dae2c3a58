package dht.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.junit.jupiter.api.Assumptions;

/**
 * How much of a core a thread of this JVM gets now: it spins for a while and compares the CPU
 * time it got with the time that passed. The generator's timing tests need most of one (the
 * generator, the test server and their threads share the machine); on a loaded 2-core machine a
 * spinning thread got a tenth of one, and every schedule fell behind, whatever the generator does.
 */
final class BusyMachine {
    private static final double ENOUGH = 0.5;

    private BusyMachine() {
    }

    /** The share of a core this thread got over about 200 ms of spinning; 1 where that cannot be told. */
    static double cpuShare() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isCurrentThreadCpuTimeSupported()) return 1;
        long cpu0 = threads.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        while (System.nanoTime() - t0 < 200_000_000L) {
            Thread.onSpinWait();
        }
        return (threads.getCurrentThreadCpuTime() - cpu0) / (double) (System.nanoTime() - t0);
    }

    /**
     * Throws {@code failed}, a timing bound missed, unless this JVM gets less than half a core
     * now: then the bound says nothing about the generator, and the test is skipped, saying why.
     */
    static void rethrowUnlessBusy(AssertionError failed) {
        double share = cpuShare();
        Assumptions.assumeTrue(share >= ENOUGH, () -> String.format(
                "too busy a machine for timing bounds (a spinning thread got %.0f%% of a core): %s", 100 * share, failed.getMessage()));
        throw failed;
    }
}
