package dht.node.cluster;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The measured window of an in-process cost harness ({@link TreeTrackingCost}, {@link LoneWriteCost}):
 * from construction to {@link #end()}, the operations counted, the whole process's CPU time and heap
 * bytes allocated, and the same two for a chosen set of threads (the request path's, say).
 */
final class CostWindow {
    /** What a window measured; the thread figures are over the threads given to the window. */
    record Figures(long ops, double seconds, long cpuNanos, long allocatedBytes, long threadsCpuNanos,
                   long threadsAllocatedBytes) {}

    private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final LongAdder ops;
    private final List<Thread> threads;
    private final long ops0;
    private final long cpu0;
    private final long alloc0;
    private final long threadsCpu0;
    private final long threadsAlloc0;
    private final long t0;

    /** Starts the window now; {@code threads} are the ones measured apart. */
    CostWindow(LongAdder ops, List<Thread> threads) {
        this.ops = ops;
        this.threads = List.copyOf(threads);
        ops0 = ops.sum();
        cpu0 = OS.getProcessCpuTime();
        alloc0 = THREADS.getTotalThreadAllocatedBytes();
        threadsCpu0 = threadsCpu();
        threadsAlloc0 = threadsAllocated();
        t0 = System.nanoTime();
    }

    /** The figures since the window started. */
    Figures end() {
        long n = ops.sum() - ops0;
        long cpu = OS.getProcessCpuTime() - cpu0;
        long alloc = THREADS.getTotalThreadAllocatedBytes() - alloc0;
        long tCpu = threadsCpu() - threadsCpu0;
        long tAlloc = threadsAllocated() - threadsAlloc0;
        return new Figures(n, (System.nanoTime() - t0) / 1e9, cpu, alloc, tCpu, tAlloc);
    }

    private long threadsCpu() {
        long sum = 0;
        for (Thread t : threads) sum += THREADS.getThreadCpuTime(t.threadId());
        return sum;
    }

    private long threadsAllocated() {
        long sum = 0;
        for (Thread t : threads) sum += THREADS.getThreadAllocatedBytes(t.threadId());
        return sum;
    }
}
