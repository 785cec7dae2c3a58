package dht.jmh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Comparator;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * One point of the cost curve: loads {@code KEYS} 16-byte keys with 100-byte values into a new
 * database of one engine (keys in random order), then measures it with a cold page cache: point
 * reads at a constant rate, a scan, and the write and space amplification of the load.
 * Usage: {@code CostCurve ENGINE KEYS DIR RESULTS [READS_PER_S] [READ_SECONDS] [SCAN_SECONDS]}
 * (engines as {@link KvEngine#open} names them; defaults 5000/s, 30 s, 60 s). Appends one
 * tab-separated line to RESULTS and deletes DIR at the end. Drops the page cache, so it runs as root.
 */
public final class CostCurve {
    static final int KEY_SIZE = 16;
    /** Half of each value is random, half repeats it, so that it compresses to about half, as db_bench's values. */
    static final int VALUE_SIZE = 100;
    static final String HEADER = "time\tengine\tkeys\tput_s\tsettle_s\tput_keys_per_s\tfill_keys_per_s\twritten_bytes"
            + "\tfill_cpu_us_per_key\twrite_amp\tdisk_bytes\tspace_amp\tshape\topen_s\treads\tread_s\tp50_ms\tp99_ms\tp999_ms\tmax_ms"
            + "\tdisk_read_bytes_per_get\tmissing\tscan_entries\tscan_bytes\tscan_s\tscan_mb_per_s\tload";

    private CostCurve() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: CostCurve ENGINE KEYS DIR RESULTS [READS_PER_S] [READ_SECONDS] [SCAN_SECONDS]");
            System.exit(2);
        }
        String engine = args[0];
        long keys = Long.parseLong(args[1].replace("_", ""));
        Path dir = Path.of(args[2]);
        Path results = Path.of(args[3]);
        int readRate = args.length > 4 ? Integer.parseInt(args[4]) : 5000;
        double readSeconds = args.length > 5 ? Double.parseDouble(args[5]) : 30;
        double scanSeconds = args.length > 6 ? Double.parseDouble(args[6]) : 60;
        long logical = keys * (KEY_SIZE + VALUE_SIZE);

        delete(dir);
        Files.createDirectories(dir);
        ProcIo io0 = ProcIo.now();
        long cpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        String shape;
        double putSeconds;
        double settleSeconds;
        long fillCpuNanos;
        try (KvEngine kv = KvEngine.open(engine, dir)) {
            load(kv, engine, keys, dir, t0);
            putSeconds = (System.nanoTime() - t0) / 1e9;
            kv.settle();
            settleSeconds = (System.nanoTime() - t0) / 1e9 - putSeconds;
            shape = kv.shape();
            fillCpuNanos = processCpuNanos() - cpu0;
            log("%s: %d keys put in %.1f s, settled %.1f s later, %.2f us of process CPU per key: %s", engine, keys,
                    putSeconds, settleSeconds, fillCpuNanos / 1e3 / keys, shape);
            ConstantRateReads.run(kv, keys, 20_000, 3, 4, false); // compiles the read path before the cold runs
        }
        long written = ProcIo.now().writtenSince(io0);
        long disk = diskBytes(dir);
        log("written %s (%.2fx the %s put), on disk %s (%.2fx)", gb(written), (double) written / logical, gb(logical),
                gb(disk), (double) disk / logical);

        dropCaches();
        long o0 = System.nanoTime();
        ConstantRateReads.Result reads;
        double openSeconds;
        long readBytes;
        try (KvEngine kv = KvEngine.open(engine, dir)) {
            openSeconds = (System.nanoTime() - o0) / 1e9;
            ProcIo r0 = ProcIo.now();
            reads = ConstantRateReads.run(kv, keys, readRate, readSeconds, 32, true);
            readBytes = ProcIo.now().readSince(r0);
        }
        Histogram h = reads.latencyNanos();
        log("cold reads: %d at %.0f/s, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms, %.0f disk bytes read per get, %d missing",
                reads.reads(), reads.rate(), ms(h, 50), ms(h, 99), ms(h, 99.9), h.getMaxValue() / 1e6,
                (double) readBytes / reads.reads(), reads.missing());

        dropCaches();
        long[] scan;
        double scanTook;
        try (KvEngine kv = KvEngine.open(engine, dir)) {
            long s0 = System.nanoTime();
            scan = kv.scanFor((long) (scanSeconds * 1e9));
            scanTook = (System.nanoTime() - s0) / 1e9;
        }
        double scanMbps = scan[1] / 1e6 / scanTook;
        log("cold scan: %d entries, %s in %.1f s, %.1f MB/s", scan[0], gb(scan[1]), scanTook, scanMbps);

        String line = String.join("\t", Instant.now().toString(), engine, Long.toString(keys),
                f(putSeconds), f(settleSeconds), f(keys / putSeconds), f(keys / (putSeconds + settleSeconds)),
                Long.toString(written), f(fillCpuNanos / 1e3 / keys), f((double) written / logical), Long.toString(disk), f((double) disk / logical),
                shape, f(openSeconds), Long.toString(reads.reads()), f(reads.seconds()), f(ms(h, 50)), f(ms(h, 99)),
                f(ms(h, 99.9)), f(h.getMaxValue() / 1e6), f((double) readBytes / reads.reads()),
                Long.toString(reads.missing()), Long.toString(scan[0]), Long.toString(scan[1]), f(scanTook), f(scanMbps),
                Files.readString(Path.of("/proc/loadavg")).trim().split(" ")[0]);
        boolean fresh = !Files.exists(results);
        Files.writeString(results, (fresh ? HEADER + "\n" : "") + line + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        delete(dir);
    }

    /** Puts keys 0 to {@code keys - 1} (their hashed prefixes put them in random order), with a progress line every 10 s. */
    private static void load(KvEngine kv, String engine, long keys, Path dir, long t0) throws IOException {
        SplittableRandom rnd = new SplittableRandom(42);
        long lastTime = t0;
        long lastCount = 0;
        for (long i = 0; i < keys; i++) {
            byte[] value = new byte[VALUE_SIZE];
            for (int j = 0; j < VALUE_SIZE / 2; j += 8) Keys.write(value, Math.min(j, VALUE_SIZE / 2 - 8), rnd.nextLong());
            System.arraycopy(value, 0, value, VALUE_SIZE / 2, VALUE_SIZE / 2);
            kv.put(Keys.loaded(i), value);
            if ((i & 0xFFFF) == 0) {
                long now = System.nanoTime();
                if (now - lastTime >= 10_000_000_000L) {
                    double overall = i / ((now - t0) / 1e9);
                    log("fill %s: %d of %d keys (%.1f%%), %.0f keys/s now, %.0f keys/s overall, ETA %.0f s, %s on disk, %s",
                            engine, i, keys, 100.0 * i / keys, (i - lastCount) / ((now - lastTime) / 1e9), overall,
                            (keys - i) / overall, gb(diskBytes(dir)), kv.shape());
                    lastTime = now;
                    lastCount = i;
                }
            }
        }
    }

    /** CPU time of every thread of this process so far, the engines' native threads included. */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** Writes dirty pages back and empties the page cache, so that what follows reads from the disk. */
    static void dropCaches() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sh", "-c", "sync && echo 3 > /proc/sys/vm/drop_caches").inheritIO().start();
        if (p.waitFor() != 0) throw new IOException("could not drop the page cache (run as root)");
    }

    static long diskBytes(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            long n = 0;
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                try {
                    n += Files.size(p);
                } catch (java.nio.file.NoSuchFileException gone) {
                    // deleted by a compaction while we walked
                }
            }
            return n;
        } catch (java.io.UncheckedIOException gone) {
            return -1;
        }
    }

    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    private static double ms(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1e6;
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    private static String gb(long bytes) {
        return String.format(Locale.ROOT, "%.2f GB", bytes / 1e9);
    }

    private static void log(String format, Object... args) {
        System.out.printf(Locale.ROOT, "%s %s%n", Instant.now().toString().substring(11, 19), String.format(Locale.ROOT, format, args));
    }
}
