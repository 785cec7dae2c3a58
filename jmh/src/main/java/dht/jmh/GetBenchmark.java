package dht.jmh;

import java.io.IOException;
import java.util.concurrent.ThreadLocalRandom;
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

/** Random point reads on a loaded, compacted database: keys that are there, and keys that are not. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class GetBenchmark {
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
    public boolean getHit() throws IOException {
        boolean found = kv.get(Keys.loaded(ThreadLocalRandom.current().nextLong(keys)));
        if (!found) throw new IllegalStateException("a loaded key is missing");
        return found;
    }

    @Benchmark
    public boolean getMiss() throws IOException {
        return kv.get(Keys.missing(ThreadLocalRandom.current().nextLong(keys)));
    }
}
