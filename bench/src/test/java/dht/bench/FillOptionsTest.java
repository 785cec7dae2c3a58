package dht.bench;

import static dht.bench.BenchCli.bench;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * fill writes its range in order, each key once, so it offers no --distribution (an option it would
 * take and ignore); the load runs, which draw keys from a distribution, do.
 */
class FillOptionsTest {
    @Test
    void fillRefusesADistributionAndSendsNothing() throws Exception {
        List<String> requests = new CopyOnWriteArrayList<>();
        try (TestServers.Running server = TestServers.start(ex -> {
            requests.add(ex.getRequestMethod() + " " + ex.getRequestURI());
            TestServers.answer(ex, 201, new byte[0]);
        }, 1)) {
            BenchCli.Outcome o = bench("fill", "--url", server.url(), "--count", "5", "-c", "1", "--distribution", "zipfian");
            assertThat(o.exitCode()).as("bad usage").isEqualTo(2);
            assertThat(o.stderr()).startsWith("Unknown option").contains("'--distribution'");
            assertThat(requests).isEmpty();

            // The same fill without it writes k0000000000 .. k0000000004, in order.
            assertThat(bench("fill", "--url", server.url(), "--count", "5", "-c", "1").exitCode()).isZero();
            assertThat(requests).extracting(r -> r.replaceAll("^PUT /v0/entity\\?id=(k\\d+).*$", "$1"))
                    .containsExactly("k0000000000", "k0000000001", "k0000000002", "k0000000003", "k0000000004");
        }
    }

    @Test
    void helpOffersADistributionOnlyWhereKeysAreDrawnFromOne() {
        assertThat(bench("fill", "--help").stdout()).contains("--count=<count>").doesNotContain("--distribution=");
        assertThat(bench("--help").stdout()).contains("--distribution=<distribution>");
        assertThat(bench("sweep", "--help").stdout()).contains("--distribution=<distribution>");
    }

}
