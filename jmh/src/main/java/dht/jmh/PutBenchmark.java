package dht.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Random puts of 16-byte keys and 100-byte values into a fresh database, from 1 and 2 threads, and
 * from 64 (as many as the node's storage pool has: the writers then queue for group commit).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PutBenchmark {
    @Param({"dht", "rocksdb"})
    public String engine;

    private Path dir;
    private KvEngine kv;
    private final byte[] value = new byte[Keys.VALUE_SIZE];

    @Setup(Level.Trial)
    public void open() throws IOException {
        ThreadLocalRandom.current().nextBytes(value);
        dir = Files.createTempDirectory("dht-jmh-put-" + engine);
        kv = KvEngine.open(engine, dir);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        kv.close();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    @Benchmark
    @Threads(1)
    public void put1Thread() throws IOException {
        kv.put(Keys.random(ThreadLocalRandom.current()), value);
    }

    @Benchmark
    @Threads(2)
    public void put2Threads() throws IOException {
        kv.put(Keys.random(ThreadLocalRandom.current()), value);
    }

    @Benchmark
    @Threads(64)
    public void put64Threads() throws IOException {
        kv.put(Keys.random(ThreadLocalRandom.current()), value);
    }
}
