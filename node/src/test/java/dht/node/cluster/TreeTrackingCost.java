package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.LsmStore;
import dht.storage.Store;
import dht.storage.StoreOptions;
import dht.storage.SyncPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What keeping the hash trees on write costs a PUT, in process (issue #38; docs/benchmarks.md,
 * "Trees kept on write, in process"): overwrites of random keys among {@code keys} filled ones,
 * 100-byte values, one per write call or {@code BATCH} together (as the cluster hands a store
 * the writes of one event-loop pass), through {@link HashTrees#tracked()} over a real {@link LsmStore} on disk
 * (periodic sync, as the cluster benchmark's nodes), with the trees built ({@code on}) or never
 * built ({@code off}: writes pass straight through). One mode per JVM; it prints ops/s, the
 * process's CPU time per op (every thread: writers, log, flush, compaction; and the writer
 * threads' alone, where the trees' work runs) and the heap bytes allocated per op (every thread),
 * which survive a noisy machine better than throughput.
 *
 * <p>Not a test: run it with the node's test classpath, e.g.
 * {@code java -Xmx256m -cp ... dht.node.cluster.TreeTrackingCost on DIR [SECONDS] [THREADS] [KEYS] [BATCH] [cpu|alloc:PROFILE.collapsed]}.
 */
public final class TreeTrackingCost {
    private static final List<String> NODES = List.of("http://a", "http://b", "http://c");
    private static final ExchangePeers VIEW = new ExchangePeers(1, "http://a", List.of("http://b", "http://c"),
            new Placement(NODES), 3);

    public static void main(String[] args) throws Exception {
        boolean on = switch (args[0]) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("mode is on or off, not " + args[0]);
        };
        Path dir = Path.of(args[1]);
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        int threads = args.length > 3 ? Integer.parseInt(args[3]) : 2;
        int keyCount = args.length > 4 ? Integer.parseInt(args[4]) : 200_000;
        int batch = args.length > 5 ? Integer.parseInt(args[5]) : 1;
        String profile = args.length > 6 ? args[6] : null;

        byte[][] keys = new byte[keyCount][];
        for (int i = 0; i < keyCount; i++) keys[i] = String.format("key%09d", i).getBytes(StandardCharsets.UTF_8);
        byte[] value = new byte[100];
        AtomicLong clock = new AtomicLong(System.currentTimeMillis() * 1_000);

        try (Store raw = LsmStore.open(dir, StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC))) {
            List<Entry> fill = new ArrayList<>();
            for (byte[] k : keys) {
                fill.add(Entry.value(k, value, clock.incrementAndGet()));
                if (fill.size() == 500) {
                    raw.write(fill);
                    fill.clear();
                }
            }
            raw.write(fill);
            raw.flush();
            HashTrees trees = new HashTrees(VIEW, raw);
            if (on) TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false);
            Store tracked = trees.tracked();

            LongAdder ops = new LongAdder();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicBoolean failed = new AtomicBoolean();
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    try {
                        while (!stop.get()) {
                            if (batch == 1) {
                                tracked.put(keys[r.nextInt(keyCount)], value, clock.incrementAndGet());
                            } else {
                                List<Entry> es = new ArrayList<>(batch);
                                for (int i = 0; i < batch; i++) {
                                    es.add(Entry.value(keys[r.nextInt(keyCount)], value, clock.incrementAndGet()));
                                }
                                tracked.write(es);
                            }
                            ops.add(batch);
                        }
                    } catch (Exception e) {
                        failed.set(true);
                        e.printStackTrace();
                    }
                }, "writer-" + t);
                w.start();
                writers.add(w);
            }
            Thread.sleep(seconds * 1_000L); // warm-up as long as the run: JIT, memtable fill, flushes
            // PROFILE: cpu:FILE (itimer, 1 ms) or alloc:FILE, collapsed stacks
            String[] prof = profile == null ? null : profile.split(":", 2);
            if (prof != null) {
                one.profiler.AsyncProfiler.getInstance().execute(prof[0].equals("alloc")
                        ? "start,event=alloc,alloc=64k" : "start,event=itimer,interval=1ms");
            }
            CostWindow window = new CostWindow(ops, writers);
            Thread.sleep(seconds * 1_000L);
            CostWindow.Figures f = window.end();
            long n = f.ops();
            if (prof != null) one.profiler.AsyncProfiler.getInstance().execute("stop,collapsed,file=" + prof[1]);
            stop.set(true);
            for (Thread w : writers) w.join();
            if (failed.get()) throw new IllegalStateException("a writer failed");
            System.out.printf("tracking %s: %.0f ops/s, %.2f us CPU/op (writers %.2f), %.0f bytes allocated/op (%d ops, %d threads, %d keys, exact %s)%n",
                    on ? "on" : "off", n / f.seconds(), f.cpuNanos() / 1e3 / n, f.threadsCpuNanos() / 1e3 / n,
                    (double) f.allocatedBytes() / n, n, threads,
                    keyCount, trees.exact());
            System.out.printf("  (batches of %d entries per write call)%n", batch);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
