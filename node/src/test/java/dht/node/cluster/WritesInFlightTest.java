package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.rpc.StoreReplicaEndpoint;
import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.Store;
import dht.storage.StoreStats;
import java.io.IOException;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WritesInFlight}: a member about to move data waits out the writes that entered before,
 * and only those; a peer's replica call counts from before its version is checked until answered.
 */
class WritesInFlightTest {
    private static final Membership V1 = Membership.initial(List.of("http://a", "http://b", "http://c"), 2);
    private static final Membership V2 = V1.withLeaving("http://c");
    private static final Duration SHORT = Duration.ofMillis(50);

    private final WritesInFlight writes = new WritesInFlight();
    private final ExecutorService storage = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() {
        storage.shutdownNow();
    }

    @Test
    void aWaitEndsOnlyOnceEveryWriteThatEnteredBeforeItHasLeft() throws Exception {
        assertThat(writes.awaitEarlier(SHORT)).as("nothing in flight").isTrue();
        WritesInFlight.Cohort first = writes.enter();
        WritesInFlight.Cohort second = writes.enter();
        assertThat(writes.awaitEarlier(SHORT)).isFalse();
        assertThat(writes.inFlight()).as("both, across the cohorts the wait started").isEqualTo(2);
        first.leave();
        assertThat(writes.awaitEarlier(SHORT)).as("one still in flight, from before both waits").isFalse();
        second.leave();
        assertThat(writes.awaitEarlier(SHORT)).isTrue();
        assertThat(writes.inFlight()).isZero();
    }

    @Test
    void aWriteThatEntersAfterAWaitBeganDoesNotHoldItUp() throws Exception {
        WritesInFlight.Cohort before = writes.enter();
        CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
            try {
                return writes.awaitEarlier(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        WritesInFlight.Cohort after = writes.enter();
        while (after == before) { // until the wait has begun a cohort of its own
            after.leave();
            Thread.sleep(1);
            after = writes.enter();
        }
        assertThat(waited).isNotDone();
        before.leave();
        assertThat(waited.get(5, TimeUnit.SECONDS)).isTrue();
        after.leave();
    }

    @Test
    void aPeersWriteCountsUntilItIsInTheStoreAndARefusedOneLeavesAtOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        MemoryStore store = new MemoryStore();
        Store held = new Store() { // the memory store, its writes held until released
            @Override
            public void write(List<Entry> entries) throws IOException {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                store.write(entries);
            }

            @Override
            public void put(byte[] key, byte[] value, long timestamp) throws IOException {
                write(List.of(Entry.value(key, value, timestamp)));
            }

            @Override
            public void delete(byte[] key, long timestamp) throws IOException {
                write(List.of(Entry.tombstone(key, timestamp)));
            }

            @Override
            public Entry get(byte[] key) throws IOException {
                return store.get(key);
            }

            @Override
            public CloseableIterator<Entry> scan(byte[] from, byte[] to) throws IOException {
                return store.scan(from, to);
            }

            @Override
            public StoreStats stats() {
                return store.stats();
            }

            @Override
            public void close() {
            }
        };
        MembershipState state = new MembershipState("http://a", V1, null, url -> { });
        MembershipFence fence = new MembershipFence();
        fence.follow(state);
        StorageDispatcher dispatcher = new StorageDispatcher(storage, null);
        StoreReplicaEndpoint endpoint = new StoreReplicaEndpoint(
                new ReplicaService(held, dispatcher, dispatcher, new HybridLogicalClock(), fence));

        CompletableFuture<FullHttpResponse> answer = endpoint.handle(put("k1", 1));
        assertThat(fence.writes().awaitEarlier(SHORT)).as("the write is on its way to the store").isFalse();
        release.countDown();
        assertThat(answer.get(5, TimeUnit.SECONDS).status().code()).isEqualTo(201);
        assertThat(fence.writes().awaitEarlier(SHORT)).isTrue();
        assertThat(store.map).hasSize(1);

        state.apply(V2);
        assertThat(endpoint.handle(put("k2", 1)).get(5, TimeUnit.SECONDS).status().code())
                .as("placed by the version before").isEqualTo(409);
        assertThat(fence.writes().awaitEarlier(SHORT)).isTrue();
        assertThat(store.map).hasSize(1);
    }

    /**
     * However a coordinator's write ends (written, its own store write failing, refused before
     * anything is sent, a {@code from} beyond the cluster, a value borrowed from the request), it
     * counts until this node's store write is over, and not after.
     */
    @Test
    void aCoordinatorsWriteCountsUntilItsOwnStoreWriteIsOverHoweverItEnds() throws Exception {
        List<String> urls = List.of("http://a:1", "http://b:1", "http://c:1");
        java.util.concurrent.LinkedBlockingQueue<Runnable> queued = new java.util.concurrent.LinkedBlockingQueue<>();
        StorageDispatcher dispatcher = new StorageDispatcher(queued::add, null); // runs what the test lets run
        MemoryStore store = new MemoryStore();
        java.util.Map<String, Replica> replicas = new java.util.LinkedHashMap<>();
        replicas.put(urls.get(0), new LocalReplica(urls.get(0), store, dispatcher, dispatcher));
        RecordingReplica b = new RecordingReplica(urls.get(1));
        RecordingReplica c = new RecordingReplica(urls.get(2));
        replicas.put(urls.get(1), b);
        replicas.put(urls.get(2), c);
        Topology t = new Topology(Membership.initial(urls, 3));
        MembershipFence fence = new MembershipFence();
        ReplicatingCoordinator coordinator = new ReplicatingCoordinator(() -> t, replicas, new HybridLogicalClock(),
                new ReadRepair(replicas, Duration.ofSeconds(1), null), new FullRepair(replicas), null, fence, Duration.ZERO, FirstClockReading.none());
        WritesInFlight counted = fence.writes();
        byte[] key = "k".getBytes(StandardCharsets.UTF_8);

        CompletableFuture<Answer> put = coordinator.put(key, "v".getBytes(StandardCharsets.UTF_8), new Quorum(2, 3));
        assertThat(put.get(5, TimeUnit.SECONDS)).as("the two peers make the quorum").isEqualTo(Answer.STORED);
        assertThat(counted.awaitEarlier(SHORT)).as("this node's own write still queued").isFalse();
        runAll(queued);
        assertThat(counted.awaitEarlier(SHORT)).isTrue();

        store.failing = true;
        coordinator.put(key, "w".getBytes(StandardCharsets.UTF_8), new Quorum(2, 3)).get(5, TimeUnit.SECONDS);
        runAll(queued);
        assertThat(counted.awaitEarlier(SHORT)).as("its store write failed").isTrue();
        store.failing = false;

        b.down = true;
        c.down = true;
        assertThat(coordinator.put(key, "x".getBytes(StandardCharsets.UTF_8), new Quorum(2, 3)).get(5, TimeUnit.SECONDS))
                .isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
        assertThat(queued).as("refused before anything was sent").isEmpty();
        assertThat(counted.awaitEarlier(SHORT)).isTrue();
        b.down = false;
        c.down = false;

        try {
            coordinator.put(key, "y".getBytes(StandardCharsets.UTF_8), new Quorum(1, 4)).get(5, TimeUnit.SECONDS);
        } catch (IllegalArgumentException | java.util.concurrent.ExecutionException e) {
            // from 4 of 3: refused, whichever way
        }
        assertThat(counted.awaitEarlier(SHORT)).as("from beyond the cluster").isTrue();

        io.netty.buffer.ByteBuf large = Unpooled.wrappedBuffer(new byte[BorrowedBody.BORROW_AT]);
        CompletableFuture<Answer> borrowed = coordinator.put(key, large, new Quorum(2, 3));
        assertThat(borrowed.get(5, TimeUnit.SECONDS)).isEqualTo(Answer.STORED);
        assertThat(counted.awaitEarlier(SHORT)).as("the borrowed value still queued for this node's store").isFalse();
        runAll(queued);
        assertThat(counted.awaitEarlier(SHORT)).isTrue();
        assertThat(store.map.get(key).value()).hasSize(BorrowedBody.BORROW_AT);
    }

    private static void runAll(java.util.concurrent.BlockingQueue<Runnable> queued) {
        for (Runnable r = queued.poll(); r != null; r = queued.poll()) r.run();
    }

    /** A coordinator's write of {@code key}, placed by membership version {@code placedBy}. */
    private static FullHttpRequest put(String key, long placedBy) {
        FullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/internal/v0/entity?id=" + key,
                Unpooled.copiedBuffer("value", StandardCharsets.UTF_8));
        r.headers().set("X-Dht-Timestamp", Long.toString(new HybridLogicalClock().next()));
        r.headers().set("X-Dht-Membership", Long.toString(placedBy));
        return r;
    }
}
