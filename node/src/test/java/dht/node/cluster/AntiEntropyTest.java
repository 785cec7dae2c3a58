package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.LsmStore;
import dht.storage.Store;
import dht.storage.StoreOptions;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Anti-entropy between in-process nodes whose transport calls the other node's server side directly. */
class AntiEntropyTest {
    private final ExecutorService storage = Executors.newFixedThreadPool(2);
    private final Map<String, Store> stores = new HashMap<>();
    private final Map<String, ReplicaService> services = new HashMap<>();
    private final Map<String, AntiEntropy> nodes = new LinkedHashMap<>();
    final Map<String, PurgeHorizon> horizons = new HashMap<>();
    /** Each node's agreed membership, which a test may change. */
    final Map<String, AtomicReference<Membership>> memberships = new HashMap<>();
    /** Runs before each page request a node makes (a test's hook). */
    volatile Runnable beforePage = () -> { };
    /** Run once, right after the next tree a node fetches was taken: a write landing in between. */
    final java.util.concurrent.atomic.AtomicReference<Runnable> afterTree = new java.util.concurrent.atomic.AtomicReference<>();
    /** Nodes whose server side fails every call, as an unreachable node's would. */
    final Set<String> down = ConcurrentHashMap.newKeySet();

    @AfterEach
    void close() throws Exception {
        nodes.values().forEach(AntiEntropy::close);
        storage.shutdownNow();
        for (Store s : stores.values()) s.close();
    }

    private void cluster(int replicas, String... urls) throws Exception {
        cluster(replicas, (url, horizon) -> new MemoryStore(), urls);
    }

    /** A node's store, given its URL and the purge horizon its anti-entropy feeds. */
    interface StoreFactory {
        Store open(String url, PurgeHorizon horizon) throws Exception;
    }

    void cluster(int replicas, StoreFactory storeOf, String... urls) throws Exception {
        cluster(Membership.initial(List.of(urls), replicas), storeOf, urls);
    }

    /** Nodes {@code urls}, each starting on membership {@code initial} (which may leave some out). */
    void cluster(Membership initial, StoreFactory storeOf, String... urls) throws Exception {
        for (String url : urls) {
            AtomicReference<Membership> membership = new AtomicReference<>(initial);
            memberships.put(url, membership);
            PurgeHorizon horizon = new PurgeHorizon(url, initial.all());
            horizon.follow(() -> membership.get().all());
            horizons.put(url, horizon);
            HashTrees trees = new HashTrees(ExchangePeers.of(url, initial), storeOf.open(url, horizon));
            // Every write, the test's own included, goes through the trees, as a node's do.
            Store store = trees.tracked();
            StorageDispatcher d = new StorageDispatcher(storage, null);
            ReplicaService service = new ReplicaService(store, d, d, new HybridLogicalClock(), new MembershipFence());
            stores.put(url, store);
            services.put(url, service);
            nodes.put(url, new AntiEntropy(url, membership::get, trees, service, new Direct(url),
                    Duration.ZERO, 0, horizon));
        }
    }

    /** The transport of node {@code self}: the peer's AntiEntropy and ReplicaService, called directly. */
    private final class Direct implements TreeTransport {
        private final String self;

        Direct(String self) {
            this.self = self;
        }

        @Override
        public CompletableFuture<MerkleTree> tree(String peer, long version) {
            if (down.contains(peer)) return CompletableFuture.failedFuture(new java.io.IOException(peer + " is down"));
            return nodes.get(peer).tree(self, version).thenApply(t -> {
                Runnable r = afterTree.getAndSet(null);
                if (r != null) r.run();
                return t;
            });
        }

        @Override
        public CompletableFuture<TreePage> page(String peer, long version, BitSet leaves, byte[] start) {
            if (down.contains(peer)) return CompletableFuture.failedFuture(new java.io.IOException(peer + " is down"));
            beforePage.run();
            return nodes.get(peer).page(self, version, leaves, start);
        }

        @Override
        public CompletableFuture<Void> push(String peer, List<Entry> entries, long change) {
            if (down.contains(peer)) return CompletableFuture.failedFuture(new java.io.IOException(peer + " is down"));
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (Entry e : entries) writes.add(services.get(peer).<Void>write(e, () -> null));
            return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new));
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Map<String, String> contents(String url) throws Exception {
        return versions(stores.get(url).scan(new byte[0], null));
    }

    /** Each key's version as {@code value@timestamp}, {@code -@timestamp} for a tombstone; closes the scan. */
    private static Map<String, String> versions(CloseableIterator<Entry> scan) {
        Map<String, String> out = new LinkedHashMap<>();
        try (CloseableIterator<Entry> it = scan) {
            while (it.hasNext()) {
                Entry e = it.next();
                out.put(new String(e.key(), StandardCharsets.UTF_8),
                        (e.isTombstone() ? "-" : new String(e.value(), StandardCharsets.UTF_8)) + "@" + e.timestamp());
            }
        }
        return out;
    }

    @Test
    void oneRoundLeavesBothNodesWithTheNewestOfEveryKey() throws Exception {
        cluster(2, "http://a", "http://b");
        Store a = stores.get("http://a");
        Store bs = stores.get("http://b");
        for (int i = 0; i < 2_000; i++) {
            a.put(b("same" + i), b("v"), 10);
            bs.put(b("same" + i), b("v"), 10);
        }
        a.put(b("k1"), b("a-new"), 200);
        bs.put(b("k1"), b("b-old"), 100);
        a.put(b("k2"), b("a-old"), 100);
        bs.delete(b("k2"), 150);
        a.delete(b("k3"), 300);
        bs.put(b("k3"), b("b-old"), 250);
        bs.put(b("k4"), b("b-only"), 50);
        bs.delete(b("k5"), 60);
        a.put(b("k6"), b("a-only"), 70);
        // large values on b alone: the peer's answer comes in several pages
        for (int i = 0; i < 3; i++) bs.put(b("large" + i), "x".repeat(600_000).getBytes(StandardCharsets.UTF_8), 80);

        nodes.get("http://a").round();

        Map<String, String> onA = contents("http://a");
        assertThat(onA).isEqualTo(contents("http://b"));
        assertThat(onA).containsEntry("k1", "a-new@200").containsEntry("k2", "-@150").containsEntry("k3", "-@300")
                .containsEntry("k4", "b-only@50").containsEntry("k5", "-@60").containsEntry("k6", "a-only@70")
                .containsKey("large2").hasSize(2_009);
        Map<String, Long> c = nodes.get("http://a").counts().get("http://b");
        assertThat(c.get("keysSent")).isEqualTo(3); // k1, k3, k6
        assertThat(c.get("keysReceived")).isEqualTo(6); // k2, k4, k5, large0-2
        assertThat(c.get("keysCompared")).isEqualTo(2_004); // what a held
        assertThat(c.get("failures")).isZero();

        // nothing differs any more: trees only, from either side
        nodes.get("http://b").round();
        nodes.get("http://a").round();
        Map<String, Long> again = nodes.get("http://a").counts().get("http://b");
        assertThat(again.get("keysSent")).isEqualTo(3);
        assertThat(again.get("keysReceived")).isEqualTo(6);
        assertThat(again.get("differingLeaves")).isEqualTo(c.get("differingLeaves"));
        assertThat(nodes.get("http://b").counts().get("http://a").get("differingLeaves")).isZero();
    }

    @Test
    void aWriteInFlightBetweenTheTwoSnapshotsCostsNoPage() throws Exception {
        cluster(2, "http://a", "http://b");
        for (int i = 0; i < 1_000; i++) {
            for (Store s : stores.values()) s.put(b("same" + i), b("v"), 10);
        }
        // The replica write of k reached a and is about to reach b: b's tree is taken without it.
        stores.get("http://a").put(b("k"), b("v"), 20);
        afterTree.set(lands("http://b", b("k"), 20));
        nodes.get("http://a").round();
        Map<String, Long> c = nodes.get("http://a").counts().get("http://b");
        assertThat(c.get("differingLeaves")).as("differs at the first comparison only").isZero();
        assertThat(c.get("bytesReceived")).as("two trees, no page").isEqualTo(2L * MerkleTree.LEAVES * Long.BYTES);
        assertThat(c.get("keysSent") + c.get("keysReceived")).isZero();
        assertThat(c.get("lastFullExchangeScanMillis")).isPositive();
        assertThat(contents("http://a")).isEqualTo(contents("http://b"));
    }

    /** A replica write of {@code key} at {@code timestamp} landing on {@code node}'s store, for a hook. */
    private Runnable lands(String node, byte[] key, long timestamp) {
        return () -> {
            try {
                stores.get(node).put(key, b("v"), timestamp);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
    }

    /**
     * Under a steady write load one leaf can have a write in flight at two comparisons in a row:
     * comparing until the differing set stops shrinking still pages nothing, where paging the
     * leaf would scan both stores.
     */
    @Test
    void oneLeafInFlightAtTwoComparisonsInARowCostsNoPage() throws Exception {
        cluster(2, "http://a", "http://b");
        for (int i = 0; i < 1_000; i++) {
            for (Store s : stores.values()) s.put(b("same" + i), b("v"), 10);
        }
        byte[] k1 = b("k");
        int leaf = MerkleTree.leafOf(k1);
        byte[] k2 = null;
        for (int i = 0; k2 == null; i++) {
            if (MerkleTree.leafOf(b("k" + i)) == leaf) k2 = b("k" + i);
        }
        byte[] second = k2;
        stores.get("http://a").put(k1, b("v"), 20);
        afterTree.set(() -> {
            lands("http://b", k1, 20).run(); // k1 lands on b after b's first tree
            lands("http://a", second, 21).run(); // and k2, same leaf, is in flight
            afterTree.set(lands("http://b", second, 21));
        });
        nodes.get("http://a").round();
        Map<String, Long> c = nodes.get("http://a").counts().get("http://b");
        assertThat(c.get("differingLeaves")).as("the leaf agrees at the third comparison").isZero();
        assertThat(c.get("bytesReceived")).as("three trees, no page").isEqualTo(3L * MerkleTree.LEAVES * Long.BYTES);
        assertThat(contents("http://a")).isEqualTo(contents("http://b"));
    }

    @Test
    void onlyKeysBothNodesReplicateAreCompared() throws Exception {
        cluster(2, "http://a", "http://b", "http://c");
        Placement placement = new Placement(List.of("http://a", "http://b", "http://c"));
        Store a = stores.get("http://a");
        int aHolds = 0;
        for (int i = 0; i < 500; i++) {
            byte[] key = b("key" + i);
            a.put(key, b("v" + i), 10);
            if (placement.replicas(key, 2).contains("http://a")) aHolds++;
        }
        nodes.get("http://a").round();
        Map<String, String> onB = contents("http://b");
        Map<String, String> onC = contents("http://c");
        for (int i = 0; i < 500; i++) {
            List<String> holders = placement.replicas(b("key" + i), 2);
            boolean shared = holders.contains("http://a");
            assertThat(onB.containsKey("key" + i)).as("key" + i).isEqualTo(shared && holders.contains("http://b"));
            assertThat(onC.containsKey("key" + i)).as("key" + i).isEqualTo(shared && holders.contains("http://c"));
        }
        assertThat(onB.size() + onC.size()).isEqualTo(aHolds);
    }

    /**
     * A version is kept on as many replicas as its write asked for, its {@code from}, not on the
     * replication factor's: anti-entropy repairs a replica of those it missed and adds none, and
     * the trees then agree. A newer version asking for fewer copies shadows an older one on the
     * replicas it does not go to with a tombstone just older than it, not a copy of itself: a copy
     * there would sit in no tree, and the next such write would leave it stale for good.
     */
    @Test
    void aVersionStaysOnTheCopiesItsWriteAskedFor() throws Exception {
        String[] urls = {"http://a", "http://b", "http://c"};
        cluster(3, urls);
        Placement placement = new Placement(List.of(urls));
        for (int i = 0; i < 600; i++) {
            byte[] key = b("key" + i);
            int copies = 1 + i % 3;
            // only the first replica took the write: the others of its copies missed it
            String first = placement.replicas(key, 1).get(0);
            stores.get(first).write(List.of(Entry.value(key, b("v" + i), 10).withCopies(copies)));
        }
        for (int r = 0; r < 2; r++) for (String url : urls) nodes.get(url).round();
        for (String url : urls) {
            Map<String, String> held = contents(url);
            for (int i = 0; i < 600; i++) {
                List<String> holders = placement.replicas(b("key" + i), 1 + i % 3);
                assertThat(held.containsKey("key" + i)).as("key%d (%d copies) on %s", i, 1 + i % 3, url)
                        .isEqualTo(holders.contains(url));
            }
        }
        Map<String, Long> leavesBefore = new HashMap<>();
        for (String url : urls) leavesBefore.put(url, differingLeaves(url) + summed(url, "quietLeaves"));
        for (String url : urls) nodes.get(url).round();
        for (String url : urls) {
            assertThat(differingLeaves(url) + summed(url, "quietLeaves"))
                    .as("leaves %s found differing once every copy was in place", url)
                    .isEqualTo(leavesBefore.get(url));
        }

        byte[] mixed = b("mixed");
        for (String url : urls) stores.get(url).write(List.of(Entry.value(mixed, b("old"), 10).withCopies(3)));
        String mixedFirst = placement.replicas(mixed, 1).get(0);
        for (long ts : new long[] {20, 30}) { // two overwrites asking for one copy, each on the first replica alone
            stores.get(mixedFirst).write(List.of(Entry.value(mixed, b("new" + ts), ts).withCopies(1)));
            for (int r = 0; r < 2; r++) for (String url : urls) nodes.get(url).round();
            for (String url : urls) {
                assertThat(contents(url)).as("on %s after the write at %d", url, ts)
                        .containsEntry("mixed", url.equals(mixedFirst) ? "new" + ts + "@" + ts : "-@" + (ts - 1));
            }
        }
    }

    /**
     * A value with a {@code ttl} stays on the copies its write asked for too, before and after it
     * expires (the trees read the store as stored), on the real engine, which reads an expired value
     * as a tombstone; and one written over an older value of every replica shadows it there.
     */
    @Test
    void aValueWithAnExpiryStaysOnTheCopiesItsWriteAskedFor(@TempDir Path dir) throws Exception {
        String[] urls = {"http://a", "http://b", "http://c"};
        cluster(3, (url, horizon) -> LsmStore.open(dir.resolve(url.substring(7)), StoreOptions.defaults()), urls);
        Placement placement = new Placement(List.of(urls));
        long now = System.currentTimeMillis();
        for (int i = 0; i < 90; i++) {
            byte[] key = b("ttl" + i);
            // a third expires within the test, a third has expired already: each on its first replica alone
            long expiry = i % 3 == 0 ? now + 3_600_000 : i % 3 == 1 ? now + 700 : now - 1_000;
            stores.get(placement.replicas(key, 1).get(0)).write(List.of(Entry.value(key, b("v" + i), 10, expiry).withCopies(1 + i % 2)));
        }
        byte[] shadowed = b("shadowed");
        for (String url : urls) stores.get(url).write(List.of(Entry.value(shadowed, b("old"), 10).withCopies(3)));
        String shadowedFirst = placement.replicas(shadowed, 1).get(0);
        stores.get(shadowedFirst).write(List.of(Entry.value(shadowed, b("new"), 20, now + 3_600_000).withCopies(1)));
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) Thread.sleep(Math.max(0, now + 800 - System.currentTimeMillis()));
            for (int r = 0; r < 2; r++) for (String url : urls) nodes.get(url).round();
            for (String url : urls) {
                Map<String, String> held = stored(url);
                for (int i = 0; i < 90; i++) {
                    boolean holder = placement.replicas(b("ttl" + i), 1 + i % 2).contains(url);
                    assertThat(held.containsKey("ttl" + i)).as("ttl%d (%d copies) on %s, pass %d", i, 1 + i % 2, url, pass)
                            .isEqualTo(holder);
                }
                assertThat(held).as("on %s", url).containsEntry("shadowed", url.equals(shadowedFirst) ? "new@20" : "-@19");
            }
        }
    }

    /**
     * The tombstone that shadows an older value on the replicas a newer version with fewer copies
     * does not go to reaches them once: later exchanges neither send it again (the peer holds it)
     * nor write it back on the newer version's replica (which holds newer), so no write reaches any
     * node late and every purge horizon moves on. Sent each round, it held them at the overwrite for
     * good, and no node forgot a tombstone again. The leaf stays differing between the newer
     * version's replica and the others until they forget the tombstone; once paged with nothing
     * left to move, it is skipped while nothing in it changes ({@link QuietLeaves}).
     */
    @Test
    void aShadowingTombstoneIsSentOnceHoldsNoPurgeHorizonBackAndIsNotPagedAgain() throws Exception {
        String[] urls = {"http://a", "http://b", "http://c"};
        cluster(3, (url, horizon) -> new LateWriteReportingStore(new MemoryStore(), horizon), urls);
        long now = System.currentTimeMillis();
        long written = (now - 2 * 3_600_000L) * 1000; // microseconds, as the cluster's clock stamps them
        long overwritten = (now - 3_600_000L) * 1000;
        byte[] key = b("mixed");
        for (String url : urls) stores.get(url).write(List.of(Entry.value(key, b("old"), written).withCopies(3)));
        String first = new Placement(List.of(urls)).replicas(key, 1).get(0);
        stores.get(first).write(List.of(Entry.value(key, b("new"), overwritten).withCopies(1)));
        for (String url : urls) nodes.get(url).round();
        Map<String, Long> sent = new HashMap<>();
        for (String url : urls) {
            assertThat(contents(url)).containsEntry("mixed", url.equals(first) ? "new@" + overwritten : "-@" + (overwritten - 1));
            sent.put(url, summed(url, "keysSent"));
        }

        Thread.sleep(1_100); // the next snapshots start in a later second than every arrival so far
        long paged = differingLeaves(first);
        // the holder first: what the others hand it in their rounds arrives after its snapshots
        nodes.get(first).round();
        for (String url : urls) if (!url.equals(first)) nodes.get(url).round();
        assertThat(differingLeaves(first)).as("the leaf still differs, and is paged").isGreaterThan(paged);
        long sentAgain = summed(first, "keysSent") - sent.get(first);
        assertThat(sentAgain).as("sent again by %s, which holds the newer version", first).isZero();
        for (String url : urls) {
            assertThat(horizons.get(url).getAsLong()).as("purge horizon of %s", url).isGreaterThan(now - 60_000);
            assertThat(contents(url)).containsEntry("mixed", url.equals(first) ? "new@" + overwritten : "-@" + (overwritten - 1));
        }

        // Paged to the end with nothing changed since, the leaf is not paged again, and an
        // exchange that skipped it claims nothing for the purge horizon ...
        Map<String, Long> pagedBefore = new HashMap<>();
        Map<String, Long> skippedBefore = new HashMap<>();
        for (String url : urls) {
            pagedBefore.put(url, differingLeaves(url));
            skippedBefore.put(url, summed(url, "quietLeaves"));
        }
        long holderHorizon = horizons.get(first).getAsLong();
        for (String url : urls) nodes.get(url).round();
        for (String url : urls) {
            assertThat(differingLeaves(url)).as("leaves %s paged", url).isEqualTo(pagedBefore.get(url));
            assertThat(summed(url, "quietLeaves")).as("leaves %s skipped", url).isGreaterThan(skippedBefore.get(url));
        }
        assertThat(horizons.get(first).getAsLong()).as("the holder's horizon, every exchange skipping")
                .isEqualTo(holderHorizon);
        // ... until either hash changes: a newer version for every copy, on the holder alone
        long newest = (now - 1_800_000L) * 1000;
        stores.get(first).write(List.of(Entry.value(key, b("newest"), newest).withCopies(3)));
        for (String url : urls) nodes.get(url).round();
        for (String url : urls) assertThat(contents(url)).containsEntry("mixed", "newest@" + newest);
    }

    /**
     * A leaf is skipped only while no version in it changed on this node, whether or not a tree
     * holds it: an overwrite asking for fewer copies takes the older version out of the peers'
     * trees and puts nothing in, so the leaf's hash can go back to one recorded before.
     */
    @Test
    void aLeafIsPagedAgainAfterAnOverwriteNoTreeHolds() throws Exception {
        String[] urls = {"http://a", "http://b", "http://c"};
        cluster(3, urls);
        byte[] key = b("mixed");
        String first = new Placement(List.of(urls)).replicas(key, 1).get(0);
        for (String url : urls) {
            if (!url.equals(first)) stores.get(url).write(List.of(Entry.value(key, b("old"), 10).withCopies(3)));
        }
        nodes.get(first).round(); // it pulls the version it missed
        nodes.get(first).round(); // nothing differs
        assertThat(contents(first)).containsEntry("mixed", "old@10");

        // only the first replica's exchanges can shadow the others' older version
        stores.get(first).write(List.of(Entry.value(key, b("new"), 20).withCopies(1)));
        nodes.get(first).round();
        for (String url : urls) {
            assertThat(contents(url)).as("on %s", url).containsEntry("mixed", url.equals(first) ? "new@20" : "-@19");
        }
    }

    /**
     * A value an operator's repair brought to every replica records the repair's copies there
     * ({@link FullRepair}), so it is in those replicas' trees, and a later overwrite with fewer
     * copies on the first replica shadows it. Recording its write's one copy, it sat in no tree
     * and stayed there, stale, for good.
     */
    @Test
    void aValueRepairedToEveryReplicaIsShadowedByALaterOverwriteWithFewerCopies() throws Exception {
        String[] urls = {"http://a", "http://b", "http://c"};
        cluster(3, urls);
        byte[] key = b("repaired");
        String first = new Placement(List.of(urls)).replicas(key, 1).get(0);
        Entry v2 = Entry.value(key, b("v2"), 20).withCopies(1);
        for (String url : urls) stores.get(url).write(List.of(url.equals(first) ? v2 : v2.withCopies(3)));
        for (String url : urls) nodes.get(url).round();
        stores.get(first).write(List.of(Entry.value(key, b("v3"), 30).withCopies(1)));
        for (int r = 0; r < 2; r++) for (String url : urls) nodes.get(url).round();
        for (String url : urls) {
            assertThat(contents(url)).as(url).containsEntry("repaired", url.equals(first) ? "v3@30" : "-@29");
        }
    }

    /**
     * A leaf is skipped only after an exchange with no failure: one whose write this node refused
     * before its store (a timestamp too far ahead of its clock, which changes neither its trees nor
     * its store) is paged again once the write can go through.
     */
    @Test
    void aLeafAnExchangeFailedToRepairIsPagedAgain() throws Exception {
        cluster(2, "http://a", "http://b");
        long ahead = System.currentTimeMillis() + 4_000; // the clocks refuse more than 500 ms ahead
        stores.get("http://a").put(b("k"), b("old"), 10);
        stores.get("http://b").put(b("k"), b("new"), ahead * 1000);
        nodes.get("http://a").round();
        assertThat(contents("http://a")).containsEntry("k", "old@10");
        assertThat(summed("http://a", "failures")).isPositive();

        Thread.sleep(Math.max(0, ahead - System.currentTimeMillis()));
        nodes.get("http://a").round(); // b starts none: only a's exchange can repair a
        assertThat(contents("http://a")).containsEntry("k", "new@" + ahead * 1000);
    }

    /** A node's versions as stored: an expired value as itself, not read as a tombstone. */
    private Map<String, String> stored(String url) throws Exception {
        return versions(stores.get(url).storedScan(new byte[0], null));
    }

    private long differingLeaves(String url) {
        return summed(url, "differingLeaves");
    }

    /** A node's anti-entropy count {@code name}, summed over its peers. */
    private long summed(String url, String name) {
        return nodes.get(url).counts().values().stream().mapToLong(c -> c.get(name)).sum();
    }

    @Test
    void onlyAnExchangeCompletedInFullMovesThePurgeHorizon() throws Exception {
        cluster(3, "http://a", "http://b", "http://c");
        stores.get("http://a").put(b("k"), b("v"), 10);
        down.add("http://c");
        nodes.get("http://a").round();
        assertThat(horizons.get("http://a").getAsLong()).as("c not reached").isEqualTo(Long.MIN_VALUE);
        Map<String, Map<String, Long>> counts = nodes.get("http://a").counts();
        assertThat(counts.get("http://b").get("lastFullExchangeScanMillis")).isPositive();
        assertThat(counts.get("http://c").get("lastFullExchangeScanMillis")).isZero();

        down.clear();
        long before = System.currentTimeMillis();
        nodes.get("http://a").round();
        long after = System.currentTimeMillis();
        assertThat(horizons.get("http://a").getAsLong())
                .isBetween(before - PurgeHorizon.DEFAULT_SLACK.toMillis(), after - PurgeHorizon.DEFAULT_SLACK.toMillis());
        assertThat(horizons.get("http://b").getAsLong()).as("b started no exchange").isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void aTombstoneIsForgottenOnlyOnceEveryPeerHoldsItAndNeverComesBack(@TempDir Path dir) throws Exception {
        cluster(3, (url, horizon) -> !url.equals("http://a") ? new MemoryStore()
                : new LateWriteReportingStore(LsmStore.open(dir, StoreOptions.defaults()
                        .withTombstoneGrace(Duration.ofMinutes(1), HybridLogicalClock::toEpochMillis)
                        .withPurgeHorizon(horizon)), horizon), "http://a", "http://b", "http://c");
        long now = System.currentTimeMillis();
        long written = (now - 2 * 3_600_000L) * 1000; // microseconds, as the cluster's clock stamps them
        long deleted = (now - 3_600_000L) * 1000;
        for (Store s : stores.values()) s.put(b("k"), b("v"), written);
        Store a = stores.get("http://a");
        a.delete(b("k"), deleted);
        stores.get("http://b").delete(b("k"), deleted); // c missed the delete
        down.add("http://c");
        // Stamped hours ago, these writes reached a late: only a scan starting in a later second covers them.
        Thread.sleep(1_100);

        nodes.get("http://a").round();
        a.flush();
        a.compact();
        assertThat(contents("http://a")).as("past the grace, but c is not known to hold it")
                .containsEntry("k", "-@" + deleted);

        down.clear();
        nodes.get("http://a").round();
        assertThat(contents("http://c")).containsEntry("k", "-@" + deleted);
        a.compact();
        assertThat(contents("http://a")).as("every peer holds it now").doesNotContainKey("k");

        // a's trees still count the tombstone it forgot, as b's do, until they are built again
        // (every few hours, or at a restart); then b still holds it and hands it back: a late
        // write, kept until every peer has exchanged since
        nodes.get("http://b").round();
        assertThat(contents("http://a")).doesNotContainKey("k");
        nodes.get("http://a").rebuildTrees();
        nodes.get("http://b").round();
        assertThat(contents("http://a")).containsEntry("k", "-@" + deleted);
        a.flush();
        a.compact();
        assertThat(contents("http://a")).containsEntry("k", "-@" + deleted);
        Thread.sleep(1_100); // the next scan starts in a later second than the arrival
        nodes.get("http://a").round();
        a.flush();
        a.compact();
        assertThat(contents("http://a")).doesNotContainKey("k");
        for (String url : List.of("http://a", "http://b", "http://c")) {
            Entry e = stores.get(url).get(b("k"));
            assertThat(e == null || e.isTombstone()).as("k on " + url).isTrue();
        }
    }

    /** Every node moves to {@code next}. */
    private void agree(Membership next) {
        memberships.values().forEach(m -> m.set(next));
    }

    @Test
    void aNodeThatJoinsIsExchangedWithOnceItIsAMember() throws Exception {
        List<String> three = List.of("http://a", "http://b", "http://c");
        Membership v1 = Membership.initial(three, 3);
        cluster(v1, (url, horizon) -> new MemoryStore(), "http://a", "http://b", "http://c", "http://d");
        Store a = stores.get("http://a");
        for (int i = 0; i < 300; i++) a.put(b("key" + i), b("v" + i), 10);
        Membership joining = v1.withJoining("http://d");
        agree(joining);
        nodes.get("http://a").round();
        assertThat(contents("http://d")).as("d joins: its data comes from the stream, not from here").isEmpty();
        assertThat(nodes.get("http://a").counts()).containsOnlyKeys("http://b", "http://c");

        Membership v3 = joining.settled();
        agree(v3);
        nodes.get("http://a").round();
        Placement four = new Placement(v3.members());
        Map<String, String> onD = contents("http://d");
        int shared = 0;
        for (int i = 0; i < 300; i++) {
            List<String> holders = four.replicas(b("key" + i), 3);
            boolean both = holders.contains("http://a") && holders.contains("http://d");
            assertThat(onD.containsKey("key" + i)).as("key" + i).isEqualTo(both);
            if (both) shared++;
        }
        assertThat(shared).isPositive();
        assertThat(nodes.get("http://a").counts()).containsOnlyKeys("http://b", "http://c", "http://d");
        assertThat(nodes.get("http://a").counts().get("http://d").get("keysSent")).isEqualTo(shared);
        assertThat(horizons.get("http://a").coveredFrom().get("http://d")).as("a full exchange with d").isPositive();
    }

    @Test
    void aPeerOnAnotherMembershipVersionRefusesAndNothingMoves() throws Exception {
        Membership v1 = Membership.initial(List.of("http://a", "http://b", "http://c", "http://d"), 2);
        cluster(v1, (url, horizon) -> new MemoryStore(), "http://a", "http://b", "http://c", "http://d");
        Store a = stores.get("http://a");
        for (int i = 0; i < 300; i++) a.put(b("key" + i), b("v" + i), 10);
        Membership v2 = v1.without("http://d");
        memberships.get("http://a").set(v2); // b, c and d have not heard of it yet
        nodes.get("http://a").round();
        assertThat(nodes.get("http://a").counts()).as("d is no peer any more").containsOnlyKeys("http://b", "http://c");
        assertThat(nodes.get("http://a").counts().get("http://b").get("failures")).isEqualTo(1);
        assertThat(contents("http://b")).isEmpty();
        assertThat(contents("http://d")).isEmpty();

        agree(v2);
        nodes.get("http://a").round();
        Placement three = new Placement(v2.members());
        for (int i = 0; i < 300; i++) {
            List<String> holders = three.replicas(b("key" + i), 2);
            assertThat(contents("http://b").containsKey("key" + i)).as("key" + i)
                    .isEqualTo(holders.contains("http://a") && holders.contains("http://b"));
        }
        assertThat(contents("http://d")).isEmpty();
    }

    @Test
    void anExchangeStopsWhenThisNodesMembershipChangesUnderIt() throws Exception {
        Membership v1 = Membership.initial(List.of("http://a", "http://b", "http://c"), 3);
        cluster(v1, (url, horizon) -> new MemoryStore(), "http://a", "http://b", "http://c");
        stores.get("http://a").put(b("k"), b("v"), 10);
        stores.get("http://b").put(b("j"), b("w"), 10);
        Membership v2 = v1.withJoining("http://d");
        beforePage = () -> memberships.get("http://a").set(v2); // b still answers on v1
        nodes.get("http://a").round();
        assertThat(contents("http://b")).as("nothing pushed on a version a has left").doesNotContainKey("k");
        assertThat(contents("http://a")).as("nothing taken either").doesNotContainKey("j");
        Map<String, Long> c = nodes.get("http://a").counts().get("http://b");
        assertThat(c.get("failures")).as("a stopped exchange is no failure").isZero();
        assertThat(c.get("exchanges")).isZero();
        assertThat(horizons.get("http://a").coveredFrom().get("http://b")).isZero();
    }
}
