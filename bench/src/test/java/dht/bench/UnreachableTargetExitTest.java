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
        assertThat(bench("fill", "--url", url, "--count", "0").exitCode()).isEqualTo(2);
    }

    /** A --url that names no node, as the other modes refuse it, is bad usage (was: taken, and loaded as its host and port). */
    @Test
    void aUrlWithAUserAFragmentAPathOrABadPortIsBadUsage() throws Exception {
        for (String url : java.util.List.of("http://user@127.0.0.1:1", "http://127.0.0.1:1#x", "http://127.0.0.1:1/v0",
                "http://127.0.0.1:99999")) {
            assertThat(bench("fill", "--url", url, "--count", "5").exitCode()).as(url).isEqualTo(2);
            assertThat(bench("--url", url, "-c", "1", "-R", "10", "-d", "1s").exitCode()).as(url).isEqualTo(2);
        }
    }

    /**
     * A profiling event the nodes do not take is bad usage, found before the run: here no node is
     * reachable, so a check made after connecting would exit 1 (and one left to the node would run
     * the whole load, then report the node's 400 and exit 0).
     */
    @Test
    void anUnknownProfilingEventIsRefusedBeforeTheRun(@org.junit.jupiter.api.io.TempDir java.nio.file.Path out) throws Exception {
        String url;
        try (ServerSocket s = new ServerSocket(0)) {
            url = "http://127.0.0.1:" + s.getLocalPort();
        }
        assertThat(bench("--url", url, "-c", "1", "-R", "10", "-d", "1s", "--profile", "cpu,foo", "--out", out.toString())
                .exitCode()).isEqualTo(2);
    }

    /** A node that goes away during the run leaves figures of part of it: a runtime failure, not a result (was: exit 0). */
    @Test
    void aNodeThatGoesAwayDuringTheRunIsARuntimeFailure() throws Exception {
        try (TestServers.Running node = TestServers.start(ex -> TestServers.answer(ex, 200, new byte[] {'v'}), 2)) {
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
                node.close();
            });
            BenchCli.Outcome o = bench("--url", node.url(), "-w", "get", "-c", "1", "-R", "50", "-d", "2s", "--warmup", "0s");
            assertThat(o.exitCode()).isEqualTo(1);
        }
    }

    @Test
    void aRefusedConnectionIsSaidInWords() throws Exception {
        assertThat(LoadGenerator.whyNotConnected(new java.net.ConnectException("finishConnect(..) failed: Connection refused")))
                .isEqualTo("connection refused");
        assertThat(LoadGenerator.whyNotConnected(null)).isEqualTo("timed out");
    }
}
