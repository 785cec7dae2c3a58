package dht.jmh;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
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

/** One full scan of the loaded database per operation (seconds per scan; divide keys by it for entries/s). */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ScanBenchmark {
    @Param({"dht", "rocksdb"})
    public String engine;

    @Param({"10000000"})
    public long keys;

    private KvEngine kv;

    @Setup(Level.Trial)
    public void open() throws IOException {
        kv = LoadedDatabase.open(engine, keys);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        kv.close();
    }

    @Benchmark
    public long fullScan() throws IOException {
        long n = kv.scanAll();
        if (n != keys) throw new IllegalStateException("scan saw " + n + " of " + keys + " keys");
        return n;
    }
}
