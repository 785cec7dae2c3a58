package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Five in-process nodes, several peers frozen at once (accepting, never answering) before anyone
 * knows they are down: a cluster scan gives each of them the replica timeout at the same time, not
 * one after the other (failed before: the scan waited the timeout once per frozen peer, 3 s with
 * two of five frozen at the default 1 s).
 */
class FrozenPeersScanTest {
    private static final Duration TIMEOUT = Duration.ofMillis(2000);
    private final List<TestNode> nodes = new ArrayList<>();

    @BeforeEach
    void startNodes() throws Exception {
        TestNode.startCluster(nodes, 5, TIMEOUT);
    }

    @AfterEach
    void stopNodes() {
        for (TestNode n : nodes) n.close();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private int scan(String start, int ack) {
        int n = 0;
        try (CloseableIterator<Entry> it = nodes.get(0).cluster().scanner().scan(b(start), null, ack)) {
            while (it.hasNext()) {
                if (!it.next().isTombstone()) n++;
            }
        }
        return n;
    }

    @Test
    void frozenPeersCostOneReplicaTimeoutTogether() throws Exception {
        for (int i = 0; i < 50; i++) {
            Answer a = nodes.get(0).cluster().coordinator().put(b(String.format("s%02d", i)), b("v"), new Quorum(5, 5))
                    .get(10, TimeUnit.SECONDS);
            assertThat(a).isEqualTo(Answer.STORED);
        }
        for (int i = 2; i < 5; i++) nodes.get(i).frozen = true;

        long t0 = System.nanoTime();
        assertThat(scan("s", 2)).isEqualTo(50);
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        // one after the other, three frozen peers would take 3 x TIMEOUT
        assertThat(took).isGreaterThanOrEqualTo(TIMEOUT.minusMillis(100)).isLessThan(TIMEOUT.multipliedBy(2));
    }

    @Test
    void aScanThatCannotReachAckFailsAfterOneReplicaTimeout() throws Exception {
        for (int i = 1; i < 5; i++) nodes.get(i).frozen = true;
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> scan("s", 2)).isInstanceOf(ClusterScanner.IncompleteScanException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(TIMEOUT.multipliedBy(2));
    }
}
