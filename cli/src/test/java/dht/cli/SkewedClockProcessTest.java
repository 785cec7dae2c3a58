package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real nodes, one of them under libfaketime with its clock two hours behind, or a minute
 * ahead: it coordinates no write (503, applied nowhere), while the two others, each seeing one
 * peer of two off, go on. Before, a black-box tester's skewed node acknowledged writes that lost
 * to older versions (behind), or overwrote later acknowledged ones (ahead). Skips where Debian's
 * {@code faketime} package is not installed (.ci/run installs it).
 */
class SkewedClockProcessTest {
    private static final Path FAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    @TempDir
    Path dir;
    private final List<NodeProcess> nodes = new ArrayList<>();
    private final List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
    private final String cluster = String.join(",", ports.stream().map(p -> "http://localhost:" + p).toList());
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    @AfterEach
    void stop() throws Exception {
        for (NodeProcess n : nodes) n.close();
    }

    @Test
    void aNodeWhoseClockIsBehindCoordinatesNoWriteAndTheOthersGoOn() throws Exception {
        start("-2h");
        assertThat(send(0, "PUT", "/v0/entity?id=k", "v1")).startsWith("201");
        String refused = send(2, "DELETE", "/v0/entity?id=k", null);
        assertThat(refused).startsWith("503").contains("clock is behind");
        assertThat(send(2, "PUT", "/v0/entity?id=j", "lost")).startsWith("503");
        assertThat(send(0, "GET", "/v0/entity?id=k&ack=3", null)).isEqualTo("200 v1");
        assertThat(send(1, "GET", "/v0/entity?id=j&ack=2", null)).startsWith("404");
        assertThat(send(1, "PUT", "/v0/entity?id=k", "v2")).startsWith("201");
        assertThat(send(0, "GET", "/v0/entity?id=k", null)).isEqualTo("200 v2");
    }

    @Test
    void aNodeWhoseClockIsAheadCoordinatesNoWriteAndTheOthersGoOn() throws Exception {
        start("+60");
        assertThat(send(2, "PUT", "/v0/entity?id=k&ack=1", "early")).startsWith("503").contains("clock is ahead");
        assertThat(send(0, "PUT", "/v0/entity?id=k", "v1")).startsWith("201");
        assertThat(send(1, "GET", "/v0/entity?id=k&ack=3", null)).isEqualTo("200 v1");
    }

    @Test
    void aNodeRestartedWithItsClockBehindRefusesItsVeryFirstWrite() throws Exception {
        assumeTrue(Files.exists(FAKETIME), "libfaketime is not installed (Debian package faketime)");
        startThree(List.of());
        // v1 is written while the third is down: it stores nothing newer than its clock at the
        // restart, so its peers' clocks alone can show it behind.
        nodes.get(2).kill();
        assertThat(send(0, "PUT", "/v0/entity?id=k&ack=2", "v1")).startsWith("201");

        restartThirdUnder(faked("-1h"));
        // Before, it heard its peers' clocks only from its first probes, about a second after it
        // served: this write was acknowledged, stamped an hour back, and lost to v1.
        assertThat(send(2, "PUT", "/v0/entity?id=k", "early")).startsWith("503").contains("clock is behind");
        assertThat(send(0, "GET", "/v0/entity?id=k&ack=2", null)).isEqualTo("200 v1");
    }

    @Test
    void aNodeRestartedWithItsClockBehindWhileItsPeersAreDownRefusesWrites() throws Exception {
        assumeTrue(Files.exists(FAKETIME), "libfaketime is not installed (Debian package faketime)");
        startThree(List.of());
        assertThat(send(0, "PUT", "/v0/entity?id=k&ack=3", "v1")).startsWith("201");

        for (NodeProcess n : nodes) n.kill();
        restartThirdUnder(faked("-1h"));
        // No peer answers its clock ask: before, it stamped this write an hour back, acknowledged
        // it alone, and it lost to v1 once the others came back (a tester, 2 of 2).
        assertThat(send(2, "PUT", "/v0/entity?id=k&ack=1", "lost")).startsWith("503")
                .contains("behind the newest version in its store");
        assertThat(send(2, "DELETE", "/v0/entity?id=k&ack=1", null)).startsWith("503");
    }

    /** The launcher that runs a node under libfaketime at {@code offset}, the monotonic clock left true. */
    private static List<String> faked(String offset) {
        return List.of("env", "LD_PRELOAD=" + FAKETIME, "FAKETIME=" + offset, "DONT_FAKE_MONOTONIC=1",
                "FAKETIME_DONT_FAKE_MONOTONIC=1");
    }

    /** Three nodes, the third started through {@code launcher}; waits until all three serve. */
    private void startThree(List<String> launcher) throws Exception {
        for (int i = 0; i < 3; i++) nodes.add(node(i, i < 2 ? List.of() : launcher));
        for (NodeProcess n : nodes) n.start();
        for (NodeProcess n : nodes) n.awaitReady(Duration.ofSeconds(60));
    }

    /** Node {@code i} of the three, on its own data directory, started through {@code launcher}. */
    private NodeProcess node(int i, List<String> launcher) {
        return new NodeProcess("localhost", launcher, ports.get(i), dir.resolve("n" + i),
                List.of("--cluster", cluster, "--anti-entropy-interval", "0"));
    }

    /** Starts the third node again (it was killed), through {@code launcher}, and waits until it serves. */
    private void restartThirdUnder(List<String> launcher) throws Exception {
        nodes.set(2, node(2, launcher));
        nodes.get(2).start();
        nodes.get(2).awaitReady(Duration.ofSeconds(60));
    }

    /** Three nodes, the third under libfaketime at {@code offset}; waits until the third has heard its peers' clocks. */
    private void start(String offset) throws Exception {
        assumeTrue(Files.exists(FAKETIME), "libfaketime is not installed (Debian package faketime)");
        startThree(faked(offset));
        // Each node probes a quiet peer every second; its answer carries the peer's clock.
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!send(2, "PUT", "/v0/entity?id=probe&ack=1&from=1", "x").startsWith("503") && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
    }

    /** "STATUS BODY" of a request to node {@code i}. */
    private String send(int i, String method, String target, String body) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(nodes.get(i).url() + target)).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> a = http.send(r.build(), HttpResponse.BodyHandlers.ofString());
        return a.statusCode() + " " + a.body();
    }
}
