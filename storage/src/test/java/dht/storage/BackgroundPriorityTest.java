package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dht.testkit.ThreadScheduling;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The flush and compaction threads' CPU priority, as Linux reports it for each thread ("policy nice"). */
class BackgroundPriorityTest {
    private static final String SCHED_OTHER = "0";
    private static final String SCHED_IDLE = "5";
    private static final Path THREAD_SELF = Path.of("/proc/thread-self/stat");

    @BeforeAll
    static void linuxOnly() {
        assumeTrue(Files.isReadable(THREAD_SELF), "needs Linux's /proc/thread-self");
    }

    @Test
    void lowIsNice19AndIdleIsSchedIdle() throws Exception {
        // NORMAL changes nothing: the thread keeps what it inherited (a build run under nice included).
        assertThat(onNewThread(BackgroundPriority.NORMAL)).isEqualTo(ThreadScheduling.policyAndNice(THREAD_SELF));
        assertThat(onNewThread(BackgroundPriority.LOW)).isEqualTo(SCHED_OTHER + " 19");
        assertThat(onNewThread(BackgroundPriority.IDLE)).startsWith(SCHED_IDLE + " ");
    }

    @Test
    void aStoreRunsItsFlushAndCompactionThreadsAtItsPriority(@TempDir Path dir) throws Exception {
        try (LsmStore store = LsmStore.open(dir, StoreOptions.defaults().withBackgroundPriority(BackgroundPriority.IDLE))) {
            // Each thread sets its own priority when it starts, which may be a moment after open returns.
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (count(backgroundThreads(), SCHED_IDLE) < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(backgroundThreads()).as("policies of the threads named dht-storage-flush/-compact")
                    .filteredOn(SCHED_IDLE::equals).hasSizeGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void byDefaultTheyRunAsEveryOtherThread(@TempDir Path dir) throws Exception {
        // Threads of stores other tests closed may still be listed (or go) meanwhile: no new idle one counts.
        long idleBefore = count(backgroundThreads(), SCHED_IDLE);
        try (LsmStore store = LsmStore.open(dir, StoreOptions.defaults())) {
            Thread.sleep(200); // time to take a priority, had they been given one
            assertThat(count(backgroundThreads(), SCHED_IDLE)).isLessThanOrEqualTo(idleBefore);
        }
    }

    private static long count(List<String> policies, String policy) {
        return policies.stream().filter(policy::equals).count();
    }

    private static String onNewThread(BackgroundPriority p) throws Exception {
        AtomicReference<String> seen = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean applied = new java.util.concurrent.atomic.AtomicBoolean();
        Thread t = Thread.ofPlatform().start(() -> {
            applied.set(p.applyToCurrentThread());
            try {
                seen.set(ThreadScheduling.policyAndNice(THREAD_SELF));
            } catch (IOException e) {
                seen.set(e.toString());
            }
        });
        t.join();
        assertThat(applied).as("the system accepted %s", p).isTrue();
        return seen.get();
    }

    /** The scheduling policy of every live thread named for a store's flush or compaction. */
    private static List<String> backgroundThreads() throws IOException {
        return ThreadScheduling.ofThreadsNamed("dht-storage-flu", "dht-storage-com").stream()
                .map(policyAndNice -> policyAndNice.split(" ")[0]).toList();
    }
}
