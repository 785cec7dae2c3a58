package dht.node;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that pipelines requests and does not read the answers must not make the node answer
 * everything it sent into an outbound buffer that grows without limit (found by a black-box probe:
 * 1,000 pipelined GETs of a 1 MiB value took the node's memory from 126 MB to 1.6 GB, and once
 * direct memory ran out the event loop stalled every other connection on it). The node stops
 * dispatching that connection's requests while its answers are not being read, serves everyone
 * else meanwhile, and answers every request, in order and whole, once the client reads.
 */
class UnreadAnswersTest {
    static final int VALUE_BYTES = 256 * 1024;
    static final int REQUESTS = 200;
    static final String GET_BIG = "GET /v0/entity?id=big HTTP/1.1\r\nHost: x\r\n\r\n";

    @TempDir
    Path dir;

    @Test
    void aClientThatDoesNotReadHoldsABoundedNumberOfAnswersAndTheNodeServesOthers() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        var config = TestNode.withIoThreads(TestNode.config(TestPorts.free(), dir, 1024, 1 << 20, 8192, 16384), 1);
        try (TestNode node = TestNode.start(config, s -> new DelegatingStore(s) {
            @Override
            public Entry get(byte[] key) throws java.io.IOException {
                reads.incrementAndGet();
                return super.get(key);
            }
        })) {
            byte[] value = new byte[VALUE_BYTES];
            for (int i = 0; i < value.length; i++) value[i] = (byte) (i * 31 + 7);
            assertThat(node.send("PUT", "/v0/entity?id=big", value).statusCode()).isEqualTo(201);
            reads.set(0);

            try (RawHttp c = new RawHttp(node.node.port(), 4096)) {
                c.send(GET_BIG.repeat(REQUESTS));

                // The node reads until the socket's buffers and its outbound high-water mark are full,
                // plus at most one window of requests already dispatched; then it waits for the client.
                int settled = waitUntilSettled(reads);
                assertThat(settled).as("store reads while the client reads nothing").isLessThan(REQUESTS / 2);

                // Everyone else is served meanwhile, on the same (only) event loop, and the answers
                // waiting for this client hold none of the node's permits.
                long t0 = System.nanoTime();
                String status = new String(node.get("/v0/status").body(), StandardCharsets.UTF_8);
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
                assertThat(status).contains("\"inFlight\":0,");

                // Once the client reads, every answer arrives, whole and in order.
                for (int i = 0; i < REQUESTS; i++) {
                    RawHttp.Response r = c.read();
                    assertThat(r.status()).as("answer %d", i).isEqualTo(200);
                    assertThat(r.header("content-length")).as("answer %d", i).isEqualTo(String.valueOf(VALUE_BYTES));
                    assertThat(Arrays.equals(r.body(), value)).as("body of answer %d", i).isTrue();
                }
            }
            assertThat(reads.get()).isEqualTo(REQUESTS);
        }
    }

    @Test
    void aGracefulStopDoesNotWaitForAClientThatDoesNotRead() throws Exception {
        var config = TestNode.config(TestPorts.free(), dir, 1024, 1 << 20, 8192, 16384);
        TestNode node = TestNode.start(config, s -> s);
        assertThat(node.send("PUT", "/v0/entity?id=big", new byte[VALUE_BYTES]).statusCode()).isEqualTo(201);
        try (RawHttp c = new RawHttp(node.node.port(), 4096)) {
            c.send(GET_BIG.repeat(40));
            Thread.sleep(1000);
            long t0 = System.nanoTime();
            node.close();
            // The drain waits for work in flight, up to 4 s; answers that wait for their client are not work.
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
        }
    }

    @Test
    void aLargeAnswerNobodyReadsIsNotCopiedWholeIntoDirectMemory() throws Exception {
        int valueBytes = 8 << 20;
        int clients = 4;
        var config = TestNode.config(TestPorts.free(), dir, 1024, valueBytes, 8192, 16384);
        try (TestNode node = TestNode.start(config, s -> s)) {
            byte[] value = new byte[valueBytes];
            for (int i = 0; i < value.length; i++) value[i] = (byte) (i * 31 + 7);
            assertThat(node.send("PUT", "/v0/entity?id=big", value).statusCode()).isEqualTo(201);
            assertThat(node.get("/v0/entity?id=big").body()).isEqualTo(value); // warms the path up

            long before = directBytes();
            RawHttp[] conns = new RawHttp[clients];
            try {
                for (int c = 0; c < clients; c++) {
                    conns[c] = new RawHttp(node.node.port(), 4096);
                    conns[c].send(GET_BIG);
                }
                Thread.sleep(2000);
                long grown = directBytes() - before;
                // Written whole, each unread answer would take its 8 MiB of direct memory.
                assertThat(grown).as("direct memory grown while %d clients leave an 8 MiB answer unread", clients)
                        .isLessThan((long) valueBytes);
                for (RawHttp c : conns) {
                    RawHttp.Response r = c.read();
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(r.header("content-length")).isEqualTo(String.valueOf(valueBytes));
                    assertThat(Arrays.equals(r.body(), value)).isTrue();
                }
            } finally {
                for (RawHttp c : conns) if (c != null) c.close();
            }
        }
    }

    /**
     * Direct memory in use in this JVM: Netty's own count (its buffers allocated without a cleaner,
     * as in the tests' JVM; -1 when it does not count) plus the JDK's direct buffers (how Netty
     * allocates when it cannot do without a cleaner, as in a node started by bin/dht).
     */
    private static long directBytes() {
        long total = Math.max(0, io.netty.util.internal.PlatformDependent.usedDirectMemory());
        for (var pool : java.lang.management.ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) total += pool.getMemoryUsed();
        }
        return total;
    }

    /** The count once it has not moved for a second (at most 20 s). */
    private static int waitUntilSettled(AtomicInteger count) throws InterruptedException {
        int last = -1;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            int now = count.get();
            if (now == last && now > 0) return now;
            last = now;
            Thread.sleep(1000);
        }
        return count.get();
    }
}
