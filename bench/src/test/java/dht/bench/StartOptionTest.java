package dht.bench;

import static dht.bench.BenchCli.bench;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A sequential PUT run writes k(--start), k(--start + 1), ...: two runs on one node given their own
 * ranges write new keys, where without it the second rewrote the first one's from k0000000000.
 */
class StartOptionTest {
    @Test
    void aSequentialRunBeginsAtItsStart() throws Exception {
        List<String> keys = new CopyOnWriteArrayList<>();
        try (TestServers.Running server = TestServers.start(ex -> {
            keys.add(ex.getRequestURI().getQuery().replaceAll("^id=(k\\d+).*$", "$1"));
            TestServers.answer(ex, 201, new byte[0]);
        }, 1)) {
            BenchCli.Outcome o = bench("--url", server.url(), "-w", "put", "--distribution", "sequential",
                    "--keys", "2000000000", "--start", "1500000000", "-c", "1", "-R", "200", "-d", "1s", "--warmup", "0s");
            assertThat(o.exitCode()).as(o.stderr()).isZero();
            assertThat(keys).hasSizeGreaterThanOrEqualTo(150);
            assertThat(keys.subList(0, 3)).containsExactly("k1500000000", "k1500000001", "k1500000002");
            assertThat(keys).doesNotHaveDuplicates().allMatch(k -> k.compareTo("k1500000000") >= 0);
        }
    }

    @Test
    void aStartOutsideTheKeySpaceOrForAnotherDistributionIsBadUsageAndSendsNothing() throws Exception {
        List<String> requests = new CopyOnWriteArrayList<>();
        try (TestServers.Running server = TestServers.start(TestServers.recording(requests, 201), 1)) {
            // The reason goes to the process's stderr (BenchException.report), not picocli's writer.
            assertThat(bench("--url", server.url(), "-w", "put", "--distribution", "uniform", "--start", "5",
                    "-d", "1s").exitCode()).isEqualTo(2);
            assertThat(bench("--url", server.url(), "-w", "put", "--distribution", "sequential", "--keys", "10",
                    "--start", "10", "-d", "1s").exitCode()).isEqualTo(2);
            assertThat(bench("--url", server.url(), "-w", "put", "--distribution", "sequential", "--start", "-1",
                    "-d", "1s").exitCode()).isEqualTo(2);
            assertThat(requests).isEmpty();
        }
    }
}
