package dht.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dht.node.exec.CpuAffinity;
import dht.storage.Entry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node asked to ({@code -Ddht.affinity=cores}) that has one event loop per CPU pins loop k and a
 * pool of storage threads to CPU k, and each loop hands its store calls to its own CPU's pool. The
 * CPUs a thread may use are read from /proc (Linux), independently of the code under test.
 */
class PinnedThreadsTest {
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
    void aNodeAskedToPinReadsOnAStorageThreadPinnedToOneCpuAndNotOtherwise(@TempDir Path dir) throws Exception {
        assumeTrue(CPUS.size() >= 2 && Runtime.getRuntime().availableProcessors() == CPUS.size(),
                "needs two CPUs, all of them usable by this process");
        String unpinned = allowedHere();
        assertThat(readThrough(TestNode.config(dir.resolve("a")), 0, "cores")).matches("[0-9]+");
        assertThat(readThrough(TestNode.config(dir.resolve("b")), 0, null)).isEqualTo(unpinned);
        assertThat(readThrough(TestNode.config(dir.resolve("c")), 1, "cores")).isEqualTo(unpinned);
    }

    /**
     * The threads of this process whose names start with {@code prefix}, by task id, each with where
     * it may run ("name cpus"), read from /proc independently of the code under test.
     */
    private static Map<String, String> tasks(String prefix) throws IOException {
        Map<String, String> found = new HashMap<>();
        try (Stream<Path> all = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : all.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).trim();
                    if (!name.startsWith(prefix)) continue;
                    String cpus = Files.readAllLines(task.resolve("status")).stream()
                            .filter(l -> l.startsWith("Cpus_allowed_list:"))
                            .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElseThrow();
                    found.put(task.getFileName().toString(), name + " " + cpus);
                } catch (NoSuchFileException gone) {
                    // the thread ended while we looked
                } catch (IOException e) {
                    // a thread that ends between the listing and the read gives ESRCH ("No such
                    // process") rather than a missing file; anything else is a real failure
                    if (Files.exists(task) && !"No such process".equals(e.getMessage())) throw e;
                }
            }
        }
        return found;
    }

    /**
     * Starts a node with {@code ioThreads} event loops (0: one per CPU) and {@code -Ddht.affinity=mode}
     * (null: not set), GETs a key, says where the store's read ran; if the node should pin, checks that each of its
     * event loops runs on its CPU alone and that the read ran on the pool of one of them.
     */
    private static String readThrough(NodeConfig c, int ioThreads, String mode) throws Exception {
        NodeConfig config = TestNode.withIoThreads(c, ioThreads);
        CompletableFuture<Ran> read = new CompletableFuture<>();
        boolean pinned = "cores".equals(mode) && ioThreads == 0;
        Map<String, String> loopsBefore = tasks("http-io-");
        TestNode started = WithProperty.with(JvmSettings.AFFINITY, mode, () -> TestNode.start(config.withTuning(JvmSettings.read()), s -> new DelegatingStore(s) {
            @Override
            public Entry get(byte[] key) throws IOException {
                read.complete(Ran.here());
                return super.get(key);
            }
        }));
        Map<String, String> loops;
        try (TestNode node = started) {
            assertThat(node.send("GET", "/v0/entity?id=k", null).statusCode()).isEqualTo(404);
            loops = tasks("http-io-");
        }
        Ran ran = read.get(5, TimeUnit.SECONDS);
        assertThat(ran.thread()).startsWith("storage-");
        if (pinned) {
            // pinned: every event loop this node started is "http-io-k" on CPU k alone, and the
            // read ran on the storage pool of the loop that handed it over
            loops.keySet().removeAll(loopsBefore.keySet());
            assertThat(loops).isNotEmpty();
            Set<Integer> shards = new HashSet<>();
            for (String loop : loops.values()) {
                int k = Integer.parseInt(loop.substring("http-io-".length(), loop.indexOf(' ')));
                assertThat(loop).isEqualTo("http-io-" + k + " " + CPUS.get(k));
                shards.add(k);
            }
            int k = Integer.parseInt(ran.thread().split("-")[1]);
            assertThat(shards).contains(k);
            assertThat(ran.cpus()).isEqualTo(String.valueOf(CPUS.get(k)));
        }
        return ran.cpus();
    }
}
