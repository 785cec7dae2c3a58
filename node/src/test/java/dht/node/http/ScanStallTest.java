package dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.ScanTestAccess;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A client that stops reading a scan loses it after the stall timeout, and everything is released. */
class ScanStallTest {
    @TempDir
    Path dir;
    final long saved = ScanStream.stallTimeoutNanos;

    @AfterEach
    void restore() {
        ScanStream.stallTimeoutNanos = saved;
    }

    @Test
    void aStalledReaderIsCutOffAndReleased() throws Exception {
        ScanStream.stallTimeoutNanos = TimeUnit.SECONDS.toNanos(1);
        assertThat(ScanTestAccess.stalledScanIsReleased(dir)).isTrue();
    }
}
