package dht.node;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a graceful stop does to the connections it finds, over real sockets: a request whose body is
 * still arriving, or that arrives during the drain, is answered 503 and not applied; answers queued
 * behind a request in flight go out in order before the close; a head still arriving when the drain
 * ends and an idle connection are closed without an answer; every connection ends in an orderly end
 * of stream, and the stop is quick.
 */
class GracefulStopTest {
    @TempDir
    Path dir;

    @Test
    void aBodyStillArrivingIs503AndNotAppliedAHalfHeadAndAnIdleConnectionAreClosed() throws Exception {
        TestNode node = TestNode.start(dir);
        try (RawHttp halfBody = new RawHttp(node.node.port());
             RawHttp halfHead = new RawHttp(node.node.port());
             RawHttp idle = new RawHttp(node.node.port())) {
            halfBody.send("PUT /v0/entity?id=halfbody HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
            halfHead.send("PUT /v0/entity?id=halfhead HTTP/1.1\r\nContent-Len");
            idle.send(RawProtocolTest.get("/v0/status"));
            assertThat(idle.read().status()).isEqualTo(200);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (node.bodyBytesHeld() != 3 && System.nanoTime() < deadline) Thread.sleep(10);
            assertThat(node.bodyBytesHeld()).as("the head was read, the body is arriving").isEqualTo(3);

            long t0 = System.nanoTime();
            CompletableFuture<Void> stop = CompletableFuture.runAsync(node::close);
            Thread.sleep(200);
            halfBody.send("defghij"); // the rest of the body comes during the stop: too late

            RawHttp.Response r = halfBody.read();
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(r.text()).isEqualTo("node is shutting down\n");
            assertThat(halfBody.in.read()).as("end of stream after the 503, not a reset").isEqualTo(-1);
            assertThat(halfHead.in.read()).as("a head still arriving: closed, no answer").isEqualTo(-1);
            assertThat(idle.in.read()).as("an idle connection: closed").isEqualTo(-1);

            stop.get(10, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        }
        assertThat(node.store.get("halfbody".getBytes(StandardCharsets.UTF_8))).as("not applied").isNull();
        assertThat(node.store.get("halfhead".getBytes(StandardCharsets.UTF_8))).isNull();
    }

    /**
     * While the stop waits for a request in flight (the drain, up to 4 s), a request that arrives
     * whole on an open connection, or whose head was half there when the stop began and is completed
     * during the drain, is refused 503 with Connection: close, not applied, and its connection ends in
     * an orderly end of stream. Only a head still incomplete when the drain ends is closed unanswered.
     * {@code GET /v0/status} is refused the same way: the node is no longer ready.
     */
    @Test
    void aRequestCompletedDuringTheDrainIs503AndCloseAndNotApplied() throws Exception {
        DelegatingStore[] held = new DelegatingStore[1];
        TestNode node = TestNode.start(TestNode.config(dir), s -> held[0] = new DelegatingStore(s));
        held[0].hold();
        try (RawHttp busy = new RawHttp(node.node.port());
             RawHttp open = new RawHttp(node.node.port());
             RawHttp halfHead = new RawHttp(node.node.port());
             RawHttp health = new RawHttp(node.node.port())) {
            open.send(RawProtocolTest.get("/v0/status"));
            assertThat(open.read().status()).isEqualTo(200);
            health.send(RawProtocolTest.get("/v0/status"));
            assertThat(health.read().status()).as("ready before the stop").isEqualTo(200);
            busy.send(RawProtocolTest.put("inflight", "kept"));
            assertThat(held[0].entered.tryAcquire(10, TimeUnit.SECONDS)).as("the write is in the store").isTrue();
            halfHead.send("PUT /v0/entity?id=halfhead HTTP/1.1\r\nHost: x\r\nContent-Len");

            CompletableFuture<Void> stop = CompletableFuture.runAsync(node::close);
            Thread.sleep(300);
            assertThat(stop).as("draining: the write in flight holds it").isNotDone();
            open.send(RawProtocolTest.put("during", "no"));
            halfHead.send("gth: 2\r\n\r\nno");
            health.send(RawProtocolTest.get("/v0/status")); // no longer ready: out of rotation
            for (RawHttp refused : List.of(open, halfHead, health)) {
                RawHttp.Response r = refused.read();
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.header("connection")).isEqualTo("close");
                assertThat(r.header("x-dht-stopping")).as("a peer's coordinator counts it down, not busy").isEqualTo("1");
                assertThat(r.text()).isEqualTo("node is shutting down\n");
                assertThat(refused.in.read()).as("end of stream after the 503").isEqualTo(-1);
            }

            held[0].open();
            RawHttp.Response r = busy.read();
            assertThat(r.status()).as("the request in flight finishes").isEqualTo(201);
            assertThat(busy.in.read()).as("then its connection ends").isEqualTo(-1);
            stop.get(10, TimeUnit.SECONDS);
        } finally {
            held[0].open(); // a failed assertion must not leave the stop hanging on the held write
        }
        assertThat(node.store.get(bytes("inflight"))).isNotNull();
        assertThat(node.store.get(bytes("during"))).as("not applied").isNull();
        assertThat(node.store.get(bytes("halfhead"))).as("not applied").isNull();
    }

    /**
     * Answers that follow a request in flight on its connection (a 413 and a 400 refused as they were
     * read; on another connection a 400 that closes it) are written after its answer, in request
     * order, before the connection ends: the stop closes a connection once its queue is empty, never
     * in front of it.
     */
    @Test
    void refusalsQueuedBehindARequestInFlightAreWrittenInOrderBeforeTheClose() throws Exception {
        NodeConfig c = TestNode.config(TestPorts.free(), dir, 64, 1024, 1024, 1024);
        DelegatingStore[] held = new DelegatingStore[1];
        TestNode node = TestNode.start(c, s -> held[0] = new DelegatingStore(s));
        held[0].hold();
        try (RawHttp kept = new RawHttp(node.node.port()); RawHttp closing = new RawHttp(node.node.port())) {
            kept.send(RawProtocolTest.put("first", "kept")
                    + RawProtocolTest.put("big", "b".repeat(2000)) // over --max-body: 413, the connection kept
                    + RawProtocolTest.get("/nowhere")); // 400, the connection kept
            closing.send(RawProtocolTest.put("second", "kept")
                    + "GET /v0/status HTTP/1.1\r\nno colon here\r\n\r\n"); // malformed: 400, then closed
            assertThat(held[0].entered.tryAcquire(2, 10, TimeUnit.SECONDS)).as("both writes in the store").isTrue();
            CompletableFuture<Void> stop = CompletableFuture.runAsync(node::close);
            Thread.sleep(300);
            assertThat(stop).as("draining: the writes in flight hold it").isNotDone();
            held[0].open();

            assertThat(kept.read().status()).isEqualTo(201);
            RawHttp.Response tooLarge = kept.read();
            assertThat(tooLarge.status()).isEqualTo(413);
            assertThat(tooLarge.header("connection")).isNull();
            RawHttp.Response unknown = kept.read();
            assertThat(unknown.status()).isEqualTo(400);
            assertThat(unknown.text()).isEqualTo("unknown path\n");
            assertThat(kept.in.read()).as("then the stop ends the connection").isEqualTo(-1);

            assertThat(closing.read().status()).isEqualTo(201);
            RawHttp.Response malformed = closing.read();
            assertThat(malformed.status()).isEqualTo(400);
            assertThat(malformed.header("connection")).isEqualTo("close");
            assertThat(closing.in.read()).as("end of stream after the last answer").isEqualTo(-1);
            stop.get(10, TimeUnit.SECONDS);
        } finally {
            held[0].open(); // a failed assertion must not leave the stop hanging on the held write
        }
        assertThat(node.store.get(bytes("first"))).isNotNull();
        assertThat(node.store.get(bytes("big"))).isNull();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRefusedBodyStillArrivingEndsWithItsAnswerThenEndOfStream() throws Exception {
        NodeConfig c = TestNode.config(TestPorts.free(), dir, 64, 1024, 1024, 1024);
        TestNode node = TestNode.start(c, s -> s);
        try (RawHttp client = new RawHttp(node.node.port())) {
            client.send("PUT /v0/entity?id=big HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + "b".repeat(2000));
            assertThat(client.read().status()).isEqualTo(413);
            CompletableFuture<Void> stop = CompletableFuture.runAsync(node::close);
            Thread.sleep(200);
            client.send("b".repeat(2000)); // still sending the body it was refused
            assertThat(client.in.read()).as("end of stream, not a reset").isEqualTo(-1);
            stop.get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * A large answer to a client that reads it slowly waits in the socket (it gave its admission
     * permit back, so the drain does not wait for it). Requests pipelined behind it while it waits
     * are held back (the node dispatches nothing while the client is not reading): a refusal among
     * them (414, keep-alive) is an answer already, the first request that never ran gets the
     * stop's 503 and Connection: close, the rest are dropped. The stop writes all of that out, in
     * order, while the client reads. The value is larger than any send buffer the kernel may give
     * the socket, so most of it is still in the node when the stop begins.
     */
    @Test
    void aLargeAnswerReadSlowlyWhenTheStopBeginsArrivesWholeAndWhatWaitedBehindItIsAnswered() throws Exception {
        TestNode node = TestNode.start(largeBodies(), s -> s);
        byte[] value = largeValue();
        assertThat(node.send("PUT", "/v0/entity?id=large", value).statusCode()).isEqualTo(201);
        assertThat(node.send("PUT", "/v0/entity?id=small", bytes("s")).statusCode()).isEqualTo(201);
        try (RawHttp client = new RawHttp(node.node.port(), 64 * 1024)) {
            client.send(RawProtocolTest.get("/v0/entity?id=large"));
            int length = head(client);
            Thread.sleep(300); // the node's send buffer fills: the answer waits for its client
            client.send("GET /v0/entity?id=" + "u".repeat(NodeConfig.DEFAULT_MAX_URI_BYTES) + " HTTP/1.1\r\nHost: x\r\n\r\n"
                    + RawProtocolTest.put("never", "applied") + RawProtocolTest.get("/v0/entity?id=small"));
            byte[] body = new byte[length];
            int got = client.in.readNBytes(body, 0, 100_000);
            Thread.sleep(300);

            long t0 = System.nanoTime();
            CompletableFuture<Void> stop = CompletableFuture.runAsync(node::close);
            while (got < length) {
                int n = client.in.readNBytes(body, got, Math.min(16 * 1024, length - got));
                if (n == 0) break; // end of stream
                got += n;
                Thread.sleep(1);
            }
            assertThat(got).as("bytes of the value received").isEqualTo(length);
            assertThat(body).as("the whole value").isEqualTo(value);
            RawHttp.Response tooLong = client.read();
            assertThat(tooLong.status()).as("the refusal that waited").isEqualTo(414);
            assertThat(tooLong.header("connection")).isNull();
            RawHttp.Response refused = client.read();
            assertThat(refused.status()).as("the request that never ran").isEqualTo(503);
            assertThat(refused.header("connection")).isEqualTo("close");
            assertThat(client.in.read()).as("then the connection ends").isEqualTo(-1);
            stop.get(10, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(8));
        }
        assertThat(node.store.get(bytes("never"))).as("not applied").isNull();
    }

    /** A client that takes nothing more of its answer does not hold the stop: a second without progress closes it. */
    @Test
    void aClientThatStopsReadingALargeAnswerIsClosedWithinSeconds() throws Exception {
        TestNode node = TestNode.start(largeBodies(), s -> s);
        byte[] value = largeValue();
        assertThat(node.send("PUT", "/v0/entity?id=large", value).statusCode()).isEqualTo(201);
        try (RawHttp client = new RawHttp(node.node.port(), 64 * 1024)) {
            client.send(RawProtocolTest.get("/v0/entity?id=large"));
            int length = head(client);
            client.in.readNBytes(100_000);
            Thread.sleep(300);

            long t0 = System.nanoTime();
            node.close();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("the stop").isLessThan(Duration.ofSeconds(4));
            byte[] rest = readUntilClosed(client);
            assertThat(100_000 + rest.length).as("the answer was cut short").isLessThan(length);
        }
    }

    private NodeConfig largeBodies() throws java.io.IOException {
        return TestNode.config(TestPorts.free(), dir, NodeConfig.DEFAULT_MAX_IN_FLIGHT, 32 * 1024 * 1024,
                NodeConfig.DEFAULT_MAX_URI_BYTES, NodeConfig.DEFAULT_MAX_HEADER_BYTES);
    }

    private static byte[] largeValue() {
        byte[] value = new byte[16 * 1024 * 1024];
        new java.util.Random(7).nextBytes(value);
        return value;
    }

    /** Reads a 200's head; returns its Content-Length. */
    private static int head(RawHttp client) throws java.io.IOException {
        assertThat(client.line()).isEqualTo("HTTP/1.1 200 OK");
        int length = -1;
        String l;
        while (!(l = client.line()).isEmpty()) {
            if (l.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) length = Integer.parseInt(l.substring(15).trim());
        }
        return length;
    }

    private static byte[] readUntilClosed(RawHttp client) throws java.io.IOException {
        var out = new java.io.ByteArrayOutputStream();
        byte[] buf = new byte[64 * 1024];
        try {
            int n;
            while ((n = client.in.read(buf)) != -1) out.write(buf, 0, n);
        } catch (java.net.SocketException reset) {
            // closed with unread bytes on the node's side: a reset ends it as well
        }
        return out.toByteArray();
    }
}
