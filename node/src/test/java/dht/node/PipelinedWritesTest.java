package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connection's pipelined writes on a node that is its own whole cluster (the production cluster
 * layer, batched store calls): the PUTs and DELETEs waiting behind a write start together and reach
 * the store as one batch, and each still takes effect after the one before it.
 */
class PipelinedWritesTest {
    @TempDir
    Path dir;

    private static String put(String id, String value) { return RawProtocolTest.put(id, value); }

    private static String delete(String id) { return "DELETE /v0/entity?id=" + id + " HTTP/1.1\r\nHost: x\r\n\r\n"; }

    private static String get(String id) { return RawProtocolTest.get("/v0/entity?id=" + id); }

    /** A node over a store that records its write batches, with the production cluster layer. */
    private TestNode start(DelegatingStore[] store) throws Exception {
        return TestNode.start(TestNode.config(dir), s -> store[0] = new DelegatingStore(s), NodeWiring::startCluster);
    }

    @Test
    void pipelinedWritesOfOneKeyTakeEffectInTheOrderSent() throws Exception {
        DelegatingStore[] store = new DelegatingStore[1];
        try (TestNode node = start(store); RawHttp c = new RawHttp(node.node.port())) {
            StringBuilder b = new StringBuilder();
            int keys = 60;
            for (int i = 0; i < keys; i++) b.append(put("k" + i, "a")).append(put("k" + i, "b")).append(delete("k" + i)).append(put("k" + i, "c" + i));
            for (int i = 0; i < keys; i++) b.append(put("gone" + i, "x")).append(delete("gone" + i));
            for (int i = 0; i < keys; i++) b.append(get("k" + i)).append(get("gone" + i));
            c.send(b.toString());
            for (int i = 0; i < keys; i++) {
                assertThat(c.read().status()).isEqualTo(201);
                assertThat(c.read().status()).isEqualTo(201);
                assertThat(c.read().status()).isEqualTo(202);
                assertThat(c.read().status()).isEqualTo(201);
            }
            for (int i = 0; i < keys; i++) {
                assertThat(c.read().status()).isEqualTo(201);
                assertThat(c.read().status()).isEqualTo(202);
            }
            for (int i = 0; i < keys; i++) {
                assertThat(c.read().text()).as("the last write of k%d wins", i).isEqualTo("c" + i);
                assertThat(c.read().status()).as("gone%d was deleted after it was written", i).isEqualTo(404);
            }
            assertThat(store[0].batchSizes).as("writes went to the store together").anyMatch(n -> n > 1);
            // The node stamps each write as it starts, in the order sent: the store must receive them
            // in that order too (last-write-wins alone would hide a reordering from the reads above).
            assertThat(store[0].writtenTimestamps).hasSize(keys * 6).isSorted().doesNotHaveDuplicates();
        }
    }

    @Test
    void writesWaitingBehindARunningWriteStartTogetherAsOneBatch() throws Exception {
        DelegatingStore[] store = new DelegatingStore[1];
        try (TestNode node = start(store); RawHttp c = new RawHttp(node.node.port())) {
            store[0].hold();
            try {
                c.send(put("w0", "first"));
                assertThat(store[0].entered.tryAcquire(1, 10, TimeUnit.SECONDS)).as("the first write reached the store").isTrue();
                StringBuilder b = new StringBuilder();
                for (int i = 1; i <= 8; i++) b.append(put("w" + i, "v" + i));
                c.send(b.append(get("w8")).toString());
                Thread.sleep(300); // time for the node to read them; were it to start any, it would show here
                assertThat(store[0].entered.availablePermits()).as("no write starts while an earlier one runs").isZero();
            } finally {
                store[0].open();
            }
            for (int i = 0; i <= 8; i++) assertThat(c.read().status()).isEqualTo(201);
            assertThat(c.read().text()).isEqualTo("v8");
            // Normally [1, 8]; on a machine slow enough that the node had read only some of the eight
            // when the first write finished, those start together and the rest behind them.
            assertThat(store[0].batchSizes.getFirst()).isEqualTo(1);
            assertThat(store[0].batchSizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(9);
            assertThat(store[0].batchSizes).as("writes queued behind a write started with it").anyMatch(n -> n > 1);
            assertThat(store[0].writtenTimestamps).isSorted();
        }
    }
}
