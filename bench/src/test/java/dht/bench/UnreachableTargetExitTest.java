package dht.bench;

import static dht.bench.BenchCli.bench;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * A node that cannot be reached is a runtime failure (exit 1), as for every mode of {@code bin/dht};
 * exit 2 is for bad usage, which the same command with a bad option still is (was: 2 for both).
 */
class UnreachableTargetExitTest {
    @Test
    void anUnreachableNodeIsARuntimeFailureAndABadOptionBadUsage() throws Exception {
        String url;
        try (ServerSocket s = new ServerSocket(0)) {
            url = "http://127.0.0.1:" + s.getLocalPort();
        }
        assertThat(bench("fill", "--url", url, "--count", "5", "-c", "1").exitCode()).isEqualTo(1);
        assertThat(bench("--url", url, "-w", "get", "-c", "1", "-R", "10", "-d", "1s").exitCode()).isEqualTo(1);
        assertThat(bench("fill", "--url", url, "--count", "5", "-c", "0").exitCode()).isEqualTo(2);
    }
}
