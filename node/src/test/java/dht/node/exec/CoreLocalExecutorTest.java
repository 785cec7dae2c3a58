package dht.node.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Loop k and a pool of storage threads are pinned to CPU k, and each loop hands its calls to its own
 * CPU's pool. The CPUs a thread may use are read from /proc (Linux), independently of the code under test.
 */
class CoreLocalExecutorTest {
    private static final List<Integer> CPUS = CpuAffinity.allowedCpus();

    /** Where the calling thread may run, as the kernel says: "0", "1", "0-1", ... */
    private static String allowedHere() {
        try {
            return Files.readAllLines(Path.of("/proc/thread-self/status")).stream()
                    .filter(l -> l.startsWith("Cpus_allowed_list:"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElseThrow();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private record Ran(String thread, String cpus) {
        static Ran here() {
            return new Ran(Thread.currentThread().getName(), allowedHere());
        }
    }

    @Test
    void eachLoopsCallsRunOnItsOwnCpusPoolPinnedThere() throws Exception {
        assumeTrue(CPUS.size() >= 2, "needs two CPUs this process may use");
        CoreLocalExecutor executor = new CoreLocalExecutor(CPUS, 2, "blocking");
        ThreadFactory loops = executor.loopThreads("test-loop-");
        try {
            for (int k = 0; k < CPUS.size(); k++) {
                CompletableFuture<Ran> loop = new CompletableFuture<>();
                CompletableFuture<Ran> store = new CompletableFuture<>();
                Thread t = loops.newThread(() -> {
                    loop.complete(Ran.here());
                    executor.execute(() -> store.complete(Ran.here()));
                });
                t.start();
                String cpu = String.valueOf(CPUS.get(k));
                assertThat(loop.get(5, TimeUnit.SECONDS)).isEqualTo(new Ran("test-loop-" + k, cpu));
                Ran ran = store.get(5, TimeUnit.SECONDS);
                assertThat(ran.thread()).startsWith("storage-" + k + "-");
                assertThat(ran.cpus()).isEqualTo(cpu);
            }
        } finally {
            executor.shutdown();
        }
    }

    @Test
    void callsFromOtherThreadsGoToEveryPoolInTurnAndNoneAfterShutdown() throws Exception {
        assumeTrue(CPUS.size() >= 2, "needs two CPUs this process may use");
        CoreLocalExecutor executor = new CoreLocalExecutor(CPUS, 1, "blocking");
        Set<String> cpusUsed = new HashSet<>();
        for (int i = 0; i < 2 * CPUS.size(); i++) {
            CompletableFuture<Ran> ran = new CompletableFuture<>();
            executor.execute(() -> ran.complete(Ran.here()));
            cpusUsed.add(ran.get(5, TimeUnit.SECONDS).cpus());
        }
        assertThat(cpusUsed).hasSize(CPUS.size());
        executor.shutdown();
        assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        assertThat(executor.isTerminated()).isTrue();
        assertThatThrownBy(() -> executor.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void pinsOnlyWhenAskedAndTheNodeHasOneEventLoopPerCpu() {
        assertThat(CoreLocalExecutor.appliesTo("cores", "pool", 2, List.of(0, 1))).isTrue();
        assertThat(CoreLocalExecutor.appliesTo("none", "pool", 2, List.of(0, 1))).isFalse();  // the default
        assertThat(CoreLocalExecutor.appliesTo("cores", "pool", 1, List.of(0, 1))).isFalse(); // bin/dht cluster's nodes share the CPUs
        assertThat(CoreLocalExecutor.appliesTo("cores", "pool", 4, List.of(0, 1))).isFalse();
        assertThat(CoreLocalExecutor.appliesTo("cores", "pool", 1, List.of(3))).isFalse();     // one CPU: nothing to choose
        assertThat(CoreLocalExecutor.appliesTo("cores", "pool", 0, List.of())).isFalse();      // affinity unknown (not Linux)
        assertThatThrownBy(() -> CoreLocalExecutor.appliesTo("core", "pool", 2, List.of(0, 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cores or none");
        assertThat(CoreLocalExecutor.threadsEach(64, 2)).isEqualTo(32);
        assertThat(CoreLocalExecutor.threadsEach(64, 64)).isEqualTo(8);
    }
}
