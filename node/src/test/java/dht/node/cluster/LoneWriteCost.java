package dht.node.cluster;

import dht.node.rpc.PeerClient;
import dht.storage.LsmStore;
import dht.storage.Store;
import dht.storage.StoreOptions;
import dht.storage.SyncPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a PUT costs a node started alone, in process, wired as {@code bin/dht serve} without
 * {@code --cluster} wires it (docs/benchmarks.md, "A node started alone: per-write work until it is
 * joined"): a real {@link LsmStore} on disk (periodic sync) wrapped in a
 * {@link LateWriteReportingStore}, a kept membership of one, an (empty) peer network, hints in
 * memory, anti-entropy every 10 minutes; {@code THREADS} clients each putting new 100-byte values
 * through the coordinator and waiting for each answer, two storage threads. Prints ops/s, the
 * process's CPU time per put (every thread) and the heap bytes allocated per put (every thread,
 * and the clients' and storage threads' alone: the write path without flushes and compactions),
 * after a warm-up as long as the run. Uses only API that older builds have too, so one compiled copy measures each build's
 * classes.
 *
 * <p>Not a test: {@code java -Xmx256m -cp node/target/test-classes:BUILD/dht.jar
 * dht.node.cluster.LoneWriteCost DIR [SECONDS] [THREADS]}.
 */
public final class LoneWriteCost {

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        String self = "http://127.0.0.1:1";
        Files.createDirectories(dir);
        PurgeHorizon horizon = new PurgeHorizon(self, List.of(self));
        List<Thread> storageThreads = new java.util.concurrent.CopyOnWriteArrayList<>();
        ExecutorService storage = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "storage-" + storageThreads.size());
            storageThreads.add(t);
            return t;
        });
        byte[] value = new byte[100];
        try (Store store = new LateWriteReportingStore(LsmStore.open(dir.resolve("data"),
                StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC).withPurgeHorizon(horizon)), horizon)) {
            Cluster cluster = Cluster.start(self, Membership.initial(List.of(self), 1), new MembershipFile(dir), store,
                    storage, Duration.ofSeconds(1), null, false, "all", 0, 32L << 20, null,
                    HybridLogicalClock.DEFAULT_MAX_OFFSET, Duration.ofMinutes(10), 0, horizon,
                    (me, nodes, timeout, loops) -> new PeerClient(me, nodes, timeout, loops));
            Coordinator coordinator = cluster.coordinator();
            Quorum q = Quorum.defaultFor(1);
            LongAdder ops = new LongAdder();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicBoolean failed = new AtomicBoolean();
            List<Thread> clients = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread c = new Thread(() -> {
                    long i = 0;
                    try {
                        while (!stop.get()) {
                            byte[] key = ("c" + id + "-" + i++).getBytes(StandardCharsets.UTF_8);
                            if (coordinator.put(key, value, q).join() != Answer.STORED) throw new IllegalStateException("not stored");
                            ops.increment();
                        }
                    } catch (RuntimeException e) {
                        failed.set(true);
                        e.printStackTrace();
                    }
                }, "client-" + t);
                c.start();
                clients.add(c);
            }
            Thread.sleep(seconds * 1_000L); // warm-up: JIT, memtables, flushes
            List<Thread> path = new ArrayList<>(clients);
            path.addAll(storageThreads);
            CostWindow window = new CostWindow(ops, path);
            Thread.sleep(seconds * 1_000L);
            CostWindow.Figures f = window.end();
            long n = f.ops();
            stop.set(true);
            for (Thread c : clients) c.join();
            cluster.close();
            if (failed.get()) throw new IllegalStateException("a client failed");
            System.out.printf("lone node: %.0f puts/s, %.2f us CPU/put, %.0f bytes allocated/put, %.0f of them by "
                            + "clients and storage threads (%d puts, %d clients)%n",
                    n / f.seconds(), f.cpuNanos() / 1e3 / n, (double) f.allocatedBytes() / n,
                    (double) f.threadsAllocatedBytes() / n, n, threads);
        } finally {
            storage.shutdownNow();
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
