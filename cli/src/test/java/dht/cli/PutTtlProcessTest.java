package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dht put --ttl SECONDS} against a node process: the key reads as absent once the TTL is over. */
class PutTtlProcessTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    private NodeProcess node;

    @AfterEach
    void stop() throws Exception {
        if (node != null) node.close();
    }

    @Test
    void aValuePutWithATtlIsGoneAfterItAndABadTtlIsBadUsage() throws Exception {
        node = new NodeProcess(TestPorts.free(), tmp.resolve("d"), List.of()).startAndAwait();
        String url = "--url=" + node.url();
        long before = System.currentTimeMillis();
        DhtRun put = DhtRun.of(LIMIT, "put", "--ttl", "2", "k", "v", url);
        assertThat(put.exitCode()).as(put.stderr()).isZero();
        DhtRun get = DhtRun.of(LIMIT, "get", "k", url);
        long read = System.currentTimeMillis();
        if (read < before + 2_000) { // on a machine slow enough to take longer, only the end is checked
            assertThat(get.exitCode()).as(get.stderr()).isZero();
            assertThat(get.stdout()).isEqualTo("v");
        }
        for (String bad : List.of("0", "630720001", "1.5", "abc")) {
            DhtRun o = DhtRun.of(LIMIT, "put", "--ttl", bad, "k", "w", url);
            assertThat(o.exitCode()).as("--ttl %s: %s", bad, o.stderr()).isEqualTo(2);
            assertThat(o.stderr()).as("--ttl %s", bad).contains("--ttl");
        }
        long wait = before + 2_100 - System.currentTimeMillis();
        if (wait > 0) Thread.sleep(wait);
        DhtRun gone = DhtRun.of(LIMIT, "get", "k", url);
        assertThat(gone.exitCode()).isEqualTo(1);
        assertThat(gone.stderr()).startsWith("404");
    }
}
