package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import dht.storage.ForwardingStore;
import dht.storage.Store;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node started alone writes straight to its engine until another node is named, then the way a
 * cluster node does; a write under way when that happens is not lost to the hash trees, and the
 * purge horizon hears of late writes once there is a peer to be late for.
 */
class LoneNodeStoreTest {
    private static final String SELF = "http://localhost:1";
    private static final String PEER = "http://localhost:2";
    /** Every key is shared with the peer: two nodes, two replicas. */
    private static final ExchangePeers VIEW = new ExchangePeers(2, SELF, List.of(PEER),
            new Placement(List.of(SELF, PEER)), 2);

    private final ExecutorService writers = Executors.newCachedThreadPool();

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        writers.shutdownNow();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Micros since the epoch, as the cluster's clock stamps writes. */
    private static long now() {
        return System.currentTimeMillis() * 1_000;
    }

    @Test
    void aloneAWriteDoesNotPassTheTreesGateOnceGrownItDoes() throws Exception {
        MemoryStore engine = new MemoryStore();
        HashTrees trees = new HashTrees(VIEW, engine);
        LoneNodeStore lone = new LoneNodeStore(engine, trees);
        trees.gate.writeLock().lock(); // as a snapshot or a build step holds it
        try {
            CompletableFuture<Void> alone = write(lone, Entry.value(b("k1"), b("v"), now()));
            alone.get(10, TimeUnit.SECONDS);
            assertThat(engine.map.get(b("k1"))).isNotNull();

            lone.grow();
            CompletableFuture<Void> grown = write(lone, Entry.value(b("k2"), b("v"), now()));
            Thread.sleep(200);
            assertThat(grown).as("a grown node's write waits for the gate").isNotDone();
            trees.gate.writeLock().unlock();
            grown.get(10, TimeUnit.SECONDS);
        } finally {
            if (trees.gate.isWriteLockedByCurrentThread()) trees.gate.writeLock().unlock();
        }
        assertThat(engine.map.get(b("k2"))).isNotNull();
    }

    @Test
    void aDirectWriteStillUnderWayWhenTheNodeGrowsMakesTheTreesBuildAgain() throws Exception {
        MemoryStore memory = new MemoryStore();
        HeldStore engine = new HeldStore(memory);
        HashTrees trees = new HashTrees(VIEW, engine);
        LoneNodeStore lone = new LoneNodeStore(engine, trees);
        CompletableFuture<Void> write = write(lone, Entry.value(b("k"), b("v"), now()));
        assertThat(engine.entered.await(10, TimeUnit.SECONDS)).isTrue();

        // Another node is named, and the trees are built while the write is still on its way.
        lone.grow();
        assertThat(TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false)).isTrue();
        assertThat(trees.exact()).isTrue();
        engine.release.countDown();
        write.get(10, TimeUnit.SECONDS);
        assertThat(memory.map.get(b("k"))).isNotNull();

        assertThat(trees.exact()).as("trees built without the write it made").isFalse();
        assertThat(trees.snapshot(VIEW, PEER, System::currentTimeMillis)).isNull();
        assertThat(TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false)).isTrue();
        HashTrees.Snapshot s = trees.snapshot(VIEW, PEER, System::currentTimeMillis);
        assertThat(s).isNotNull();
        assertThat(s.keys()).isEqualTo(1);
    }

    @Test
    void aNodeStartedAloneReportsLateWritesOnceAnotherJoinsIt() throws Exception {
        PurgeHorizon horizon = new PurgeHorizon(SELF, List.of(SELF));
        MemoryStore memory = new MemoryStore();
        ExecutorService storage = Executors.newFixedThreadPool(2);
        Cluster cluster = Cluster.start(SELF, Membership.initial(List.of(SELF), 1), new MembershipFile(dir),
                new LateWriteReportingStore(memory, horizon), storage, Duration.ofSeconds(1), null, false, "all", 0,
                0, null, HybridLogicalClock.DEFAULT_MAX_OFFSET, Duration.ZERO, 0, horizon,
                dht.node.rpc.PeerClient::new);
        try {
            long lateMillis = System.currentTimeMillis() - 60_000;
            cluster.replicaService().write(Entry.value(b("early"), b("v"), lateMillis * 1_000), () -> null)
                    .get(10, TimeUnit.SECONDS);
            assertThat(memory.map.get(b("early"))).isNotNull();

            cluster.membership().apply(cluster.membership().current().withJoining(PEER));
            horizon.exchangeCompleted(PEER, System.currentTimeMillis());
            long before = horizon.getAsLong();
            assertThat(before).as("nothing late yet").isGreaterThan(lateMillis);
            cluster.replicaService().write(Entry.value(b("late"), b("v"), lateMillis * 1_000), () -> null)
                    .get(10, TimeUnit.SECONDS);
            assertThat(memory.map.get(b("late"))).isNotNull();
            assertThat(horizon.getAsLong()).as("held at the late write's timestamp").isEqualTo(lateMillis);
        } finally {
            cluster.close();
            storage.shutdownNow();
        }
    }

    private CompletableFuture<Void> write(Store store, Entry e) {
        return CompletableFuture.runAsync(() -> {
            try {
                store.write(List.of(e));
            } catch (IOException x) {
                throw new java.io.UncheckedIOException(x);
            }
        }, writers);
    }

    /** An engine whose writes wait, once they have started, until released. */
    private static final class HeldStore extends ForwardingStore {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        HeldStore(Store inner) {
            super(inner);
        }

        @Override
        public void write(List<Entry> entries) throws IOException {
            entered.countDown();
            try {
                if (!release.await(30, TimeUnit.SECONDS)) throw new IOException(new TimeoutException("never released"));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            inner.write(entries);
        }
    }
}
