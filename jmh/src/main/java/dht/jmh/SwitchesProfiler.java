package dht.jmh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler ({@code -prof dht.jmh.SwitchesProfiler}, Linux only): context switches and CPU
 * time per operation, of all the benchmark JVM's threads, from {@code /proc/self/task/*}, and the
 * heap bytes allocated per operation by the benchmark's own threads alone (JMH's workers: not the
 * store's flushes and compactions, which make {@code -prof gc}'s figure swing between rounds).
 * These count the work a hand-off between threads costs and what an operation allocates, and
 * unlike throughput they hold on a machine that other work keeps busy. A thread that ends during
 * an iteration drops out of its sums.
 */
public final class SwitchesProfiler implements InternalProfiler {
    private Sample before;
    private Map<Long, Long> workersBefore;

    /** Sums over this process's threads at one moment. */
    private record Sample(long voluntary, long involuntary, long cpuNanos) {
        static Sample now() {
            long vol = 0, invol = 0, cpu = 0;
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
                for (Path t : tasks) {
                    try {
                        for (String line : Files.readAllLines(t.resolve("status"))) {
                            if (line.startsWith("voluntary_ctxt_switches:")) vol += number(line);
                            else if (line.startsWith("nonvoluntary_ctxt_switches:")) invol += number(line);
                        }
                        // schedstat: nanoseconds on the CPU, nanoseconds waiting for one, timeslices
                        cpu += Long.parseLong(Files.readString(t.resolve("schedstat")).trim().split(" ")[0]);
                    } catch (NoSuchFileException e) {
                        // the thread ended meanwhile
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return new Sample(vol, invol, cpu);
        }

        private static long number(String line) {
            return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
        }
    }

    @Override
    public String getDescription() {
        return "context switches and CPU time per operation, all threads, from /proc/self/task";
    }

    /** Heap bytes allocated so far by each of JMH's worker threads, by thread id. */
    private static Map<Long, Long> workerAllocations() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Map<Long, Long> out = new HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().contains("jmh-worker")) out.put(t.threadId(), mx.getThreadAllocatedBytes(t.threadId()));
        }
        return out;
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        workersBefore = workerAllocations();
        before = Sample.now();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
            IterationResult result) {
        Sample after = Sample.now();
        long workerBytes = 0;
        for (Map.Entry<Long, Long> e : workerAllocations().entrySet()) {
            workerBytes += e.getValue() - workersBefore.getOrDefault(e.getKey(), 0L);
        }
        double ops = Math.max(1, result.getMetadata().getAllOps());
        return List.of(
                new ScalarResult("ctxsw.voluntary.norm", (after.voluntary - before.voluntary) / ops, "#/op", AggregationPolicy.AVG),
                new ScalarResult("ctxsw.nonvoluntary.norm", (after.involuntary - before.involuntary) / ops, "#/op",
                        AggregationPolicy.AVG),
                new ScalarResult("cpu.norm", (after.cpuNanos - before.cpuNanos) / ops, "ns/op", AggregationPolicy.AVG),
                new ScalarResult("alloc.workers.norm", workerBytes / ops, "B/op", AggregationPolicy.AVG));
    }
}
