package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Three in-process nodes talking real HTTP over loopback: replication, failures, scan. */
class MultiNodeClusterTest {
    /** Long enough that "waited for a frozen replica" and "did not" cannot be confused on a loaded machine. */
    private static final Duration TIMEOUT = Duration.ofMillis(3000);
    private final List<TestNode> nodes = new ArrayList<>();
    private List<String> urls;

    @BeforeEach
    void startNodes() throws Exception {
        urls = TestNode.startCluster(nodes, 3, TIMEOUT);
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

    private static Answer await(java.util.concurrent.CompletableFuture<Answer> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    private static String value(Answer a) {
        return a.kind() == Answer.Kind.FOUND ? new String(a.value(), StandardCharsets.UTF_8) : a.kind().name();
    }

    private int copies(String key) {
        int c = 0;
        for (TestNode n : nodes) if (n.store.map.containsKey(b(key))) c++;
        return c;
    }

    @Test
    void anyNodeCoordinatesAndAPutStoresNoMoreThanFromCopies() throws Exception {
        Quorum q23 = new Quorum(2, 3);
        assertThat(await(via(0).put(b("k"), b("v"), q23))).isEqualTo(Answer.STORED);
        for (int i = 0; i < 3; i++) assertThat(value(await(via(i).get(b("k"), q23)))).isEqualTo("v");
        for (int from = 1; from <= 3; from++) {
            String key = "from" + from;
            assertThat(await(via(from % 3).put(b(key), b("x"), new Quorum(from, from)))).isEqualTo(Answer.STORED);
            assertThat(copies(key)).isEqualTo(from);
            // and exactly on the placement's first `from` nodes
            List<String> replicas = new Placement(urls).replicas(b(key), from);
            for (TestNode n : nodes) assertThat(n.store.map.containsKey(b(key))).isEqualTo(replicas.contains(n.url));
        }
        assertThat(await(via(2).delete(b("k"), q23))).isEqualTo(Answer.DELETED);
        for (int i = 0; i < 3; i++) assertThat(await(via(i).get(b("k"), q23))).isEqualTo(Answer.NOT_FOUND);
    }

    /**
     * A value large enough to be borrowed from the request's buffer: this node's store writes it from
     * there, peers get a copy, and the buffer is the caller's again once the writes are over (even
     * when this node is not a replica of the key).
     */
    @Test
    void aLargeValueReachesEveryReplicaAndTheRequestBufferIsGivenBack() throws Exception {
        byte[] big = new byte[BorrowedBody.BORROW_AT * 2];
        new java.util.Random(7).nextBytes(big);
        for (int from = 1; from <= 3; from++) {
            for (int coordinator = 0; coordinator < 3; coordinator++) {
                // every coordinator: a replica of the key or not, with peers to copy for or none
                String key = "big" + from + "." + coordinator;
                io.netty.buffer.ByteBuf body = io.netty.buffer.Unpooled.directBuffer(big.length).writeBytes(big);
                assertThat(await(via(coordinator).put(b(key), body, new Quorum(from, from)))).isEqualTo(Answer.STORED);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (body.refCnt() != 1 && System.nanoTime() < deadline) sleep(5);
                assertThat(body.refCnt()).as("references to the request's buffer after %s", key).isEqualTo(1);
                body.setZero(0, big.length);
                body.release();
                assertThat(copies(key)).isEqualTo(from);
                for (TestNode n : nodes) {
                    Entry e = n.store.map.get(b(key));
                    if (e != null) assertThat(e.value()).as("%s on %s", key, n.url).isEqualTo(big);
                }
            }
        }
    }

    @Test
    void writesThroughDifferentNodesOneAfterTheOtherAreOrdered() throws Exception {
        Quorum q = new Quorum(2, 3);
        for (int i = 0; i < 300; i++) {
            int a = i % 3;
            int c = (i + 1) % 3;
            await(via(a).put(b("same"), b("v1-" + i), q));
            await(via(c).put(b("same"), b("v2-" + i), q));
            assertThat(value(await(via((i + 2) % 3).get(b("same"), q)))).as("round %d", i).isEqualTo("v2-" + i);
        }
    }

    @Test
    void stoppedReplica() throws Exception {
        Quorum q23 = new Quorum(2, 3);
        assertThat(await(via(0).put(b("k"), b("v"), new Quorum(3, 3)))).isEqualTo(Answer.STORED);
        nodes.get(2).stop();
        assertThat(value(await(via(0).get(b("k"), q23)))).isEqualTo("v");
        assertThat(await(via(1).put(b("k"), b("w"), q23))).isEqualTo(Answer.STORED);
        assertThat(value(await(via(0).get(b("k"), q23)))).isEqualTo("w");
        assertThat(await(via(0).put(b("k"), b("z"), new Quorum(3, 3)))).isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
        // known down: later requests fail fast rather than paying a timeout each
        long t0 = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            assertThat(await(via(0).get(b("k"), new Quorum(3, 3)))).isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        assertThat(nodes.get(0).cluster().view().peersUp()).containsEntry(nodes.get(2).url, false)
                .containsEntry(nodes.get(1).url, true);
        // restart on the same port and data: seen up again by the probe or the next request
        nodes.get(2).start(urls, TIMEOUT);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Answer a;
        do {
            a = await(via(0).put(b("k"), b("back"), new Quorum(3, 3)));
        } while (a != Answer.STORED && System.nanoTime() < deadline && sleep(100));
        assertThat(a).isEqualTo(Answer.STORED);
        assertThat(nodes.get(0).cluster().view().peersUp()).containsEntry(nodes.get(2).url, true);
    }

    /** A replica refusing for overload is up: the quorum it leaves short says so, where a stopped one's does not. */
    @Test
    void aBusyReplicaLeavesAQuorumShortAsBusyAndAStoppedOneAsNotEnough() throws Exception {
        Quorum all = new Quorum(3, 3);
        nodes.get(2).busy = true;
        assertThat(await(via(0).put(b("k"), b("v"), all))).isEqualTo(Answer.REPLICAS_BUSY);
        assertThat(await(via(0).get(b("k"), all))).isEqualTo(Answer.REPLICAS_BUSY);
        assertThat(await(via(1).delete(b("k"), all))).isEqualTo(Answer.REPLICAS_BUSY);
        assertThat(await(via(0).put(b("k"), b("v"), new Quorum(2, 3)))).isEqualTo(Answer.STORED);
        assertThat(nodes.get(0).cluster().view().peersUp()).containsEntry(nodes.get(2).url, true);

        nodes.get(2).stop();
        assertThat(await(via(0).put(b("k"), b("v"), all))).isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
    }

    private static boolean sleep(long ms) throws InterruptedException {
        Thread.sleep(ms);
        return true;
    }

    @Test
    void frozenReplicaDoesNotSlowDownQuorumsAndFullQuorumsTimeOut() throws Exception {
        Quorum q23 = new Quorum(2, 3);
        nodes.get(2).frozen = true;
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            long t0 = System.nanoTime();
            assertThat(await(via(i % 2).put(b("k" + i), b("v" + i), q23))).isEqualTo(Answer.STORED);
            long t1 = System.nanoTime();
            assertThat(value(await(via((i + 1) % 2).get(b("k" + i), q23)))).isEqualTo("v" + i);
            long t2 = System.nanoTime();
            assertThat(await(via(i % 2).delete(b("k" + i), q23))).isEqualTo(Answer.DELETED);
            long t3 = System.nanoTime();
            assertThat(await(via(i % 2).get(b("k" + i), q23))).isEqualTo(Answer.NOT_FOUND);
            long t4 = System.nanoTime();
            for (long d : new long[] {t1 - t0, t2 - t1, t3 - t2, t4 - t3}) millis.add(d / 1_000_000);
        }
        // waiting for the frozen replica would take the replica timeout each time; the bound is
        // generous (a third of it) so that a loaded machine does not make the test flaky
        List<Long> sorted = millis.stream().sorted().toList();
        assertThat(sorted.get(sorted.size() / 2)).as("median ms of %s", millis).isLessThan(TIMEOUT.toMillis() / 3);
        assertThat(sorted.get(sorted.size() * 9 / 10)).as("p90 ms of %s", millis).isLessThan(TIMEOUT.toMillis() * 2 / 3);
        long t0 = System.nanoTime();
        assertThat(await(via(0).put(b("x"), b("v"), new Quorum(3, 3)))).isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
        assertThat(await(via(1).get(b("x"), new Quorum(3, 3)))).isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(TIMEOUT.multipliedBy(4));
        // by now every coordinator has seen the frozen peer time out more than once: it is known
        // down, and requests that need it fail fast instead of paying the timeout again
        for (int i = 0; i < 2; i++) {
            assertThat(nodes.get(i).cluster().view().peersUp()).containsEntry(nodes.get(2).url, false);
        }
        t0 = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            assertThat(await(via(i % 2).put(b("x"), b("v"), new Quorum(3, 3)))).isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
        }
        // ten timeouts would be 10 x TIMEOUT; known down, none of them waits for the frozen peer
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(TIMEOUT);
        // the frozen node thaws and serves again (its late answers must not confuse the pool)
        nodes.get(2).frozen = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Answer a;
        do {
            a = await(via(0).put(b("x"), b("thawed"), new Quorum(3, 3)));
        } while (a != Answer.STORED && System.nanoTime() < deadline && sleep(100));
        assertThat(a).isEqualTo(Answer.STORED);
        for (int i = 0; i < 50; i++) {
            assertThat(await(via(0).put(b("y" + i), b("v" + i), new Quorum(3, 3)))).isEqualTo(Answer.STORED);
            assertThat(value(await(via(0).get(b("y" + i), new Quorum(3, 3))))).isEqualTo("v" + i);
        }
    }

    @Test
    void quorumReadSeesQuorumWriteWithOneReplicaDown() throws Exception {
        // GET 1/2 sees a PUT or DELETE done with 2/2, even with one replica down
        Quorum q22 = new Quorum(2, 2);
        Quorum q12 = new Quorum(1, 2);
        assertThat(await(via(0).put(b("p"), b("v"), q22))).isEqualTo(Answer.STORED);
        List<String> replicas = new Placement(urls).replicas(b("p"), 2);
        TestNode down = nodes.stream().filter(n -> n.url.equals(replicas.get(0))).findFirst().orElseThrow();
        TestNode coordinator = nodes.stream().filter(n -> n != down).findFirst().orElseThrow();
        down.stop();
        assertThat(value(await(coordinator.cluster().coordinator().get(b("p"), q12)))).isEqualTo("v");
    }

    private List<String> scan(int via, String start, String end, int ack) {
        List<String> out = new ArrayList<>();
        try (CloseableIterator<Entry> it = nodes.get(via).cluster().scanner().scan(b(start), end == null ? null : b(end), ack)) {
            while (it.hasNext()) {
                Entry e = it.next();
                if (!e.isTombstone()) out.add(new String(e.key(), StandardCharsets.UTF_8) + "=" + new String(e.value(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Test
    void clusterScanMergesNewestVersionsAndSkipsTombstones() throws Exception {
        TreeMap<String, String> model = new TreeMap<>();
        java.util.Random r = new java.util.Random(5);
        for (int i = 0; i < 400; i++) {
            String k = String.format("key%03d", r.nextInt(150));
            int from = 1 + r.nextInt(3);
            Quorum q = new Quorum(from, from);
            if (r.nextInt(4) == 0) {
                assertThat(await(via(r.nextInt(3)).delete(b(k), q))).isEqualTo(Answer.DELETED);
                model.remove(k);
            } else {
                assertThat(await(via(r.nextInt(3)).put(b(k), b("v" + i), q))).isEqualTo(Answer.STORED);
                model.put(k, "v" + i);
            }
        }
        List<String> expected = model.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
        for (int i = 0; i < 3; i++) assertThat(scan(i, "key", null, 3)).isEqualTo(expected);
        List<String> sub = model.subMap("key050", "key100").entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
        assertThat(scan(1, "key050", "key100", 2)).isEqualTo(sub);
    }

    @Test
    void clusterScanWithANodeDownOrCutMidStream() throws Exception {
        for (int i = 0; i < 100; i++) await(via(0).put(b(String.format("s%03d", i)), b("v"), new Quorum(3, 3)));
        nodes.get(2).cutScanAfter = 10;
        assertThat(scan(0, "s", null, 2)).hasSize(100); // 2 of 3 suffice
        assertThatThrownBy(() -> scan(0, "s", null, 3)).isInstanceOf(ClusterScanner.IncompleteScanException.class);
        nodes.get(2).cutScanAfter = -1;
        nodes.get(2).stop();
        assertThat(scan(0, "s", null, 2)).hasSize(100);
        assertThatThrownBy(() -> scan(0, "s", null, 3)).isInstanceOf(ClusterScanner.IncompleteScanException.class);
        nodes.get(1).frozen = true;
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> scan(0, "s", null, 2)).isInstanceOf(ClusterScanner.IncompleteScanException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(30));
        assertThat(scan(0, "s", null, 1)).hasSize(100);
    }
}
