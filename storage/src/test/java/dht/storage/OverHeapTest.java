package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A database far larger than the heap: a -Xmx128m child writes 1 GiB and scans it all back. */
@Tag("slow")
class OverHeapTest {
    private static final Logger log = LoggerFactory.getLogger(OverHeapTest.class);

    @TempDir
    Path dir;

    @Test
    void writesAndScansOneGigabyteWithA128MegabyteHeap() throws Exception {
        long bytes = Long.getLong("overheap.bytes", 1L << 30);
        String java = ProcessHandle.current().info().command().orElseThrow();
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(java, "-Xmx128m", "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), OverHeapChild.class.getName(), dir.toString(),
                Long.toString(bytes)).redirectErrorStream(true).start();
        String last = null;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                log.info("child: {}", line);
                last = line;
            }
        }
        assertThat(p.waitFor(60, TimeUnit.MINUTES)).isTrue();
        log.info("over-heap test: {} bytes written and scanned in {} s", bytes, (System.nanoTime() - t0) / 1_000_000_000);
        assertThat(p.exitValue()).as("child exit code, last line: %s", last).isZero();
        assertThat(last).isEqualTo("OK");
    }
}
