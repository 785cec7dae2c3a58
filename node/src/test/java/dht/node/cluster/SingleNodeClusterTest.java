package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SingleNodeClusterTest {
    private static final String SELF = "http://localhost:1";
    private final MemoryStore store = new MemoryStore();
    private final ExecutorService storage = Executors.newFixedThreadPool(2);
    private final Cluster cluster = Cluster.start(SELF, List.of(SELF), store, storage, Duration.ofSeconds(1), null);

    @AfterEach
    void tearDown() {
        cluster.close();
        storage.shutdownNow();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void putGetDeleteThroughTheLocalReplica() {
        Coordinator c = cluster.coordinator();
        Quorum q = Quorum.defaultFor(1);
        assertThat(c.get(b("k"), q).join()).isEqualTo(Answer.NOT_FOUND);
        assertThat(c.put(b("k"), b("v1"), q).join()).isEqualTo(Answer.STORED);
        Answer a = c.get(b("k"), q).join();
        assertThat(a.kind()).isEqualTo(Answer.Kind.FOUND);
        assertThat(a.value()).isEqualTo(b("v1"));
        assertThat(c.put(b("k"), b(""), q).join()).isEqualTo(Answer.STORED);
        assertThat(c.get(b("k"), q).join().value()).isEmpty();
        assertThat(c.delete(b("k"), q).join()).isEqualTo(Answer.DELETED);
        assertThat(c.get(b("k"), q).join()).isEqualTo(Answer.NOT_FOUND);
        assertThat(store.map.get(b("k")).isTombstone()).isTrue();
    }

    @Test
    void storeFailureIsNotEnoughReplicas() {
        store.failing = true;
        Quorum q = Quorum.defaultFor(1);
        assertThat(cluster.coordinator().put(b("k"), b("v"), q).join()).isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
        assertThat(cluster.coordinator().get(b("k"), q).join()).isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
    }

    @Test
    void rejectedStorageWorkIsNotEnoughReplicas() {
        storage.shutdownNow();
        assertThat(cluster.coordinator().put(b("k"), b("v"), Quorum.defaultFor(1)).join())
                .isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
    }

    @Test
    void consecutiveWritesAreOrderedEvenWithinOneMicrosecond() {
        Coordinator c = cluster.coordinator();
        Quorum q = Quorum.defaultFor(1);
        for (int i = 0; i < 500; i++) {
            c.put(b("k"), b("v" + i), q).join();
            assertThat(c.get(b("k"), q).join().value()).isEqualTo(b("v" + i));
        }
    }

    @Test
    void viewAndScan() {
        assertThat(cluster.view().self()).isEqualTo(SELF);
        assertThat(cluster.view().nodes()).containsExactly(SELF);
        assertThat(cluster.view().peersUp()).isEmpty();
        Coordinator c = cluster.coordinator();
        Quorum q = Quorum.defaultFor(1);
        for (String k : List.of("a", "b", "c", "d")) c.put(b(k), b(k + "!"), q).join();
        c.delete(b("c"), q).join();
        List<String> seen = new ArrayList<>();
        try (CloseableIterator<Entry> it = cluster.scanner().scan(b("b"), b("d"), 1)) {
            while (it.hasNext()) {
                Entry e = it.next();
                seen.add(new String(e.key(), StandardCharsets.UTF_8) + (e.isTombstone() ? "-" : "+"));
            }
        }
        assertThat(seen).containsExactly("b+", "c-");
    }

    private static byte[] pattern(int length, int seed) {
        byte[] v = new byte[length];
        for (int i = 0; i < length; i++) v[i] = (byte) (i * 7 + seed);
        return v;
    }

    /** A body in many pieces, as a large one comes off the socket. */
    private static io.netty.buffer.ByteBuf inPieces(byte[] value, int pieces) {
        io.netty.buffer.CompositeByteBuf c = io.netty.buffer.Unpooled.compositeBuffer(pieces);
        int step = value.length / pieces;
        for (int i = 0; i < pieces; i++) {
            int from = i * step;
            int to = i == pieces - 1 ? value.length : from + step;
            io.netty.buffer.ByteBuf piece = io.netty.buffer.Unpooled.directBuffer(to - from);
            piece.writeBytes(value, from, to - from);
            c.addComponent(true, piece);
        }
        return c;
    }

    private static void awaitRefCnt(io.netty.buffer.ByteBuf b, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        while (b.refCnt() != expected && System.nanoTime() < deadline) Thread.sleep(5);
        assertThat(b.refCnt()).as("references to the request's buffer once the write is over").isEqualTo(expected);
    }

    /**
     * A large value goes to the store from the request's own buffer, in one piece or many, and the
     * coordinator gives back what it held once the store is done, whether the write succeeded or not.
     */
    @Test
    void aLargeValueIsStoredFromTheRequestBufferWhichIsGivenBack() throws Exception {
        Coordinator c = cluster.coordinator();
        Quorum q = Quorum.defaultFor(1);
        byte[] big = pattern(BorrowedBody.BORROW_AT + 1000, 1);
        io.netty.buffer.ByteBuf onePiece = io.netty.buffer.Unpooled.directBuffer(big.length).writeBytes(big);
        assertThat(c.put(b("one"), onePiece, q).join()).isEqualTo(Answer.STORED);
        awaitRefCnt(onePiece, 1);
        io.netty.buffer.ByteBuf many = inPieces(pattern(big.length, 2), 9);
        assertThat(c.put(b("many"), many, q).join()).isEqualTo(Answer.STORED);
        awaitRefCnt(many, 1);
        onePiece.setZero(0, big.length); // the caller's to reuse now: what was stored is a copy
        onePiece.release();
        many.release();
        assertThat(c.get(b("one"), q).join().value()).isEqualTo(big);
        assertThat(c.get(b("many"), q).join().value()).isEqualTo(pattern(big.length, 2));

        store.failing = true;
        io.netty.buffer.ByteBuf failed = io.netty.buffer.Unpooled.directBuffer(big.length).writeBytes(big);
        assertThat(c.put(b("failed"), failed, q).join()).isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
        awaitRefCnt(failed, 1);
        failed.release();
        store.failing = false;

        storage.shutdownNow();
        io.netty.buffer.ByteBuf rejected = io.netty.buffer.Unpooled.directBuffer(big.length).writeBytes(big);
        assertThat(c.put(b("rejected"), rejected, q).join()).isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
        awaitRefCnt(rejected, 1);
        rejected.release();
    }
}
