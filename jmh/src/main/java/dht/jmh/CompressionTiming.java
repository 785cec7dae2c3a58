package dht.jmh;

import dht.storage.CloseableIterator;
import dht.storage.Compression;
import dht.storage.Entry;
import dht.storage.LsmStore;
import dht.storage.StoreOptions;
import dht.storage.SyncPolicy;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * A plain timing run (not JMH: one table set per configuration, measured in place) of block
 * compression: for each codec and block size, loads the same text values into one compacted
 * table, then reports its size on disk, and random point reads and full scans per CPU second of
 * the reading thread.
 * Usage: {@code CompressionTiming DIR [KEYS] [SECONDS] [CODEC,...] [BLOCK_KIB,...]} (default: every
 * codec, blocks of 4, 16 and 32 KiB; ratios are against none, so list it first); the tables are in the page cache, so this
 * measures the CPU a read spends, not a disk.
 */
public final class CompressionTiming {
    private static final String[] EVENTS = {"page_view", "add_to_cart", "checkout", "search", "login", "logout"};
    private static final String[] PATHS = {"/", "/products", "/products/widget", "/cart", "/account", "/search"};
    private static final String[] AGENTS = {
        "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"};

    private CompressionTiming() {}

    /**
     * About {@code length} bytes of JSON event records, as an application might store: the same
     * field names every time, values drawn from small sets, numbers that differ.
     */
    public static byte[] text(Random r, int length) {
        StringBuilder sb = new StringBuilder(length + 300);
        while (sb.length() < length) {
            sb.append("{\"user\":\"user").append(r.nextInt(100_000))
                    .append("\",\"event\":\"").append(EVENTS[r.nextInt(EVENTS.length)])
                    .append("\",\"path\":\"").append(PATHS[r.nextInt(PATHS.length)]).append('/').append(r.nextInt(500))
                    .append("\",\"status\":").append(r.nextInt(20) == 0 ? 404 : 200)
                    .append(",\"ms\":").append(r.nextInt(2000))
                    .append(",\"agent\":\"").append(AGENTS[r.nextInt(AGENTS.length)]).append("\"}\n");
        }
        sb.setLength(length);
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws Exception {
        Path base = Path.of(args[0]);
        int keys = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 2;
        System.out.printf("%-5s %6s %12s %8s %14s %12s%n", "codec", "block", "table bytes", "ratio", "get/cpu-s", "scan/cpu-s");
        long none = 0;
        List<Compression> codecs = args.length > 3
                ? Arrays.stream(args[3].split(",")).map(Compression::parse).toList() : List.of(Compression.values());
        int[] blocks = args.length > 4 ? Arrays.stream(args[4].split(",")).mapToInt(Integer::parseInt).toArray() : new int[] {4, 16, 32};
        for (int blockKiB : blocks) {
            for (Compression c : codecs) {
                Path dir = Files.createTempDirectory(base, c + "-" + blockKiB + "k-");
                StoreOptions o = StoreOptions.defaults().withSyncPolicy(SyncPolicy.PERIODIC)
                        .withBlockSize(blockKiB << 10).withCompression(c);
                try (LsmStore s = LsmStore.open(dir, o)) {
                    Random r = new Random(42);
                    for (int i = 0; i < keys; i++) s.put(Keys.loaded(i), text(r, 200 + r.nextInt(600)), 1);
                    s.flush();
                    s.compact();
                    long bytes = tableBytes(dir);
                    if (c == Compression.NONE) none = bytes;
                    double gets = rate(seconds, () -> {
                        var rnd = java.util.concurrent.ThreadLocalRandom.current();
                        for (int i = 0; i < 1000; i++) {
                            if (s.get(Keys.loaded(rnd.nextInt(keys))) == null) throw new AssertionError();
                        }
                        return 1000;
                    });
                    double scans = rate(seconds, () -> {
                        long n = 0;
                        try (CloseableIterator<Entry> it = s.scan(new byte[0], null)) {
                            while (it.hasNext()) {
                                it.next();
                                n++;
                            }
                        }
                        if (n != keys) throw new AssertionError(n);
                        return 1;
                    });
                    System.out.printf("%-5s %4d K %12d %8.3f %14.0f %12.2f%n", c, blockKiB, bytes, (double) bytes / none, gets, scans);
                }
                delete(dir);
            }
        }
    }

    interface Work {
        long run() throws IOException;
    }

    /**
     * Operations per CPU second of this thread running {@code w}: the best of three timed rounds
     * after a warm-up round, each {@code seconds} of wall time. CPU time, and the best round,
     * because on a shared machine other processes stretch the wall time of a round but hardly
     * the CPU time the work itself takes.
     */
    private static double rate(double seconds, Work w) throws IOException {
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        double best = 0;
        for (int round = 0; round < 4; round++) {
            long ops = 0;
            long cpu0 = cpu.getCurrentThreadCpuTime();
            long end = System.nanoTime() + (long) (seconds * 1e9);
            while (System.nanoTime() < end) ops += w.run();
            if (round > 0) best = Math.max(best, ops / ((cpu.getCurrentThreadCpuTime() - cpu0) / 1e9));
        }
        return best;
    }

    private static long tableBytes(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            long n = 0;
            for (Path p : s.filter(p -> p.toString().endsWith(".sst")).toList()) n += Files.size(p);
            return n;
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
