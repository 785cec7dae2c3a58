package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Expiry at the coordinator, over three in-process nodes whose test stores keep entries as they
 * are (they do not judge expiry, like a replica whose clock lags): the coordinator fixes one expiry
 * for every replica, and judges the newest version itself.
 */
class ExpiryQuorumTest {
    private final List<TestNode> nodes = new ArrayList<>();

    @BeforeEach
    void startNodes() throws Exception {
        TestNode.startCluster(nodes, 3, Duration.ofMillis(3000));
    }

    @AfterEach
    void stopNodes() {
        for (TestNode n : nodes) n.close();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Coordinator via(int i) {
        return nodes.get(i).cluster().coordinator();
    }

    @Test
    void everyReplicaGetsTheOneExpiryTheCoordinatorFixed() throws Exception {
        long before = System.currentTimeMillis();
        Answer a = via(1).put(b("k"), Unpooled.wrappedBuffer(b("v")), new Quorum(3, 3), 60).get(10, TimeUnit.SECONDS);
        long after = System.currentTimeMillis();
        assertThat(a).isEqualTo(Answer.STORED);
        List<Long> expiries = new ArrayList<>();
        for (TestNode n : nodes) expiries.add(n.store.map.get(b("k")).expiry());
        assertThat(expiries.getFirst()).isBetween(before + 60_000, after + 60_000);
        assertThat(expiries).containsOnly(expiries.getFirst());
    }

    /** One replica holds a newer value that has expired, two an older one without expiry: the key is absent. */
    @Test
    void anExpiredNewestVersionIsAbsentAndTheOlderOneBehindItDoesNotComeBack() throws Exception {
        nodes.get(0).store.write(List.of(Entry.value(b("q"), b("new"), 20, System.currentTimeMillis() - 1)));
        nodes.get(1).store.write(List.of(Entry.value(b("q"), b("old"), 10)));
        nodes.get(2).store.write(List.of(Entry.value(b("q"), b("old"), 10)));
        for (int i = 0; i < 3; i++) {
            assertThat(via(i).get(b("q"), new Quorum(3, 3)).get(10, TimeUnit.SECONDS)).isEqualTo(Answer.NOT_FOUND);
        }
    }
}
