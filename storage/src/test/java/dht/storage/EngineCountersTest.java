package dht.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine's running totals move with the flushes and compactions it runs. */
class EngineCountersTest {
    @TempDir
    Path dir;

    @Test
    void countsFlushesAndCompactions() throws Exception {
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            EngineCounters c = s.counters();
            assertThat(c.flushes()).isZero();
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 100; i++) s.put(("k" + i).getBytes(UTF_8), ("v" + round).getBytes(UTF_8), round * 100L + i + 1);
                s.flush();
            }
            assertThat(c.flushes()).isEqualTo(2);
            assertThat(c.flushBytes()).isPositive();
            assertThat(c.flushNanos()).isPositive();
            s.compact();
            assertThat(c.compactions()).isEqualTo(1);
            assertThat(c.compactionBytesRead()).isEqualTo(c.flushBytes());
            assertThat(c.compactionBytesWritten()).isPositive().isLessThan(c.compactionBytesRead());
            assertThat(c.compactionNanos()).isPositive();
            assertThat(c.writeStalls()).isZero();
        }
    }
}
