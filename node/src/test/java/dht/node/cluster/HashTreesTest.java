package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.LsmStore;
import dht.storage.Store;
import dht.storage.StoreOptions;
import dht.storage.SyncPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trees kept on write equal the trees a fresh scan of the store builds: after random writes,
 * overwrites older and newer, deletes, values with an expiry (some expiring meanwhile), versions
 * asking for fewer or more copies than the replication factor (so that an overwrite moves a key
 * between peers' trees) and batches repeating a key; and after a build that ran while writers went on.
 */
class HashTreesTest {
    private static final List<String> NODES = List.of("http://a", "http://b", "http://c");
    private static final String SELF = "http://a";
    private static final int REPLICAS = 2;
    private static final ExchangePeers VIEW = new ExchangePeers(1, SELF, List.of("http://b", "http://c"),
            new Placement(NODES), REPLICAS);
    private final List<Store> opened = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void close() throws Exception {
        for (Store s : opened) s.close();
    }

    private Store lsm(String name) throws IOException {
        // A small memtable: versions spread over the memtable and several tables. No tombstone is
        // forgotten (the timestamps are from 1970): that is the drift a periodic build undoes.
        Store s = LsmStore.open(dir.resolve(name), StoreOptions.defaults().withMemtableBytes(256 << 10)
                .withSyncPolicy(SyncPolicy.PERIODIC).withPurgeHorizon(() -> Long.MIN_VALUE));
        opened.add(s);
        return s;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * What a scan of {@code store} as stored builds for {@code peer}: the reference the kept trees
     * must equal. As stored: an expired value stays on the copies its write asked for.
     */
    private MerkleTree scanned(ExchangePeers view, Store store, String peer) throws IOException {
        MerkleTree t = new MerkleTree();
        try (CloseableIterator<Entry> it = store.storedScan(new byte[0], null)) {
            while (it.hasNext()) {
                Entry e = it.next();
                if (view.shares(e, peer)) t.add(e);
            }
        }
        return t;
    }

    private long keysShared(ExchangePeers view, Store store, String peer) throws IOException {
        long n = 0;
        try (CloseableIterator<Entry> it = store.storedScan(new byte[0], null)) {
            while (it.hasNext()) {
                if (view.shares(it.next(), peer)) n++;
            }
        }
        return n;
    }

    private void assertEqualsAScan(HashTrees trees, Store raw, String when) throws IOException {
        ExchangePeers view = trees.view();
        for (String peer : view.peers()) {
            HashTrees.Snapshot s = trees.snapshot(view, peer, System::currentTimeMillis);
            assertThat(s).as("exact trees %s", when).isNotNull();
            MerkleTree fresh = scanned(view, raw, peer);
            assertThat(s.tree().diff(fresh).cardinality()).as("leaves differing from a scan for %s %s", peer, when).isZero();
            assertThat(s.keys()).as("keys shared with %s %s", peer, when).isEqualTo(keysShared(view, raw, peer));
        }
    }

    /** One random version of one of {@code keys} keys; timestamps near {@code base}, so that overwrites win and lose. */
    private static Entry randomEntry(Random r, int keys, long base) {
        byte[] key = b("key" + r.nextInt(keys));
        long ts = base + r.nextInt(1_000);
        int kind = r.nextInt(10);
        long now = System.currentTimeMillis();
        if (kind < 2) return Entry.tombstone(key, ts);
        if (kind == 2) return copied(Entry.value(key, b("expired" + ts), ts, now - 1_000)); // already expired
        if (kind == 3) return copied(Entry.value(key, b("expiring" + ts), ts, now + 50 + r.nextInt(300)));
        return copied(Entry.value(key, b("v" + ts + "-" + r.nextInt(3)), ts));
    }

    /**
     * The value asking for 0 (not recorded: the replication factor's) to 4 (more than the nodes)
     * copies, by its bytes: one timestamp and value is one write, which asks for one number of
     * copies, so that two versions of a key differ in their copies only if they differ otherwise.
     */
    private static Entry copied(Entry value) {
        return value.withCopies(Math.floorMod(java.util.Arrays.hashCode(value.value()), 5));
    }

    @Test
    void treesKeptOnWriteEqualAFreshScanAfterRandomWrites() throws Exception {
        for (int seed = 1; seed <= 4; seed++) {
            Random r = new Random(seed);
            Store raw = lsm("seed" + seed);
            // Some data before the trees exist: the build scans it.
            for (int i = 0; i < 2_000; i++) raw.write(List.of(randomEntry(r, 3_000, 1_000)));
            // Odd seeds: held versions for 3,584 keys at most, so that some writes read the store.
            HashTrees trees = new HashTrees(VIEW, raw, seed % 2 == 0 ? HeldVersions.DEFAULT_BYTES : 64 << 10);
            TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false);
            assertEqualsAScan(trees, raw, "after the build, seed " + seed);
            Store tracked = trees.tracked();
            int taken = 0;
            for (int i = 0; i < 3_000; i++) {
                int op = r.nextInt(10);
                if (op < 6) {
                    // as an event loop writes: at once if the store can, else as a storage thread does
                    List<Entry> one = List.of(randomEntry(r, 3_000, 1_000 + i));
                    if (r.nextBoolean() && tracked.tryWrite(one)) taken++;
                    else tracked.write(one);
                } else if (op < 8) {
                    // a batch, a key more than once among its entries
                    List<Entry> batch = new ArrayList<>();
                    for (int j = 0; j < 1 + r.nextInt(20); j++) batch.add(randomEntry(r, 40, 1_000 + i));
                    if (r.nextBoolean() && tracked.tryWrite(batch)) taken++;
                    else tracked.write(batch);
                } else if (op == 8) {
                    tracked.delete(b("key" + r.nextInt(3_000)), 1_000 + i + r.nextInt(1_000));
                } else {
                    tracked.put(b("key" + r.nextInt(3_000)), b("p" + i), 1_000 + i + r.nextInt(1_000));
                }
                if (i % 1_000 == 999) assertEqualsAScan(trees, raw, "after " + (i + 1) + " writes, seed " + seed);
            }
            assertThat(taken).as("writes taken at once, seed " + seed).isPositive();
            raw.flush();
            raw.compact(); // expired values turn into tombstones for good: no leaf changes
            Thread.sleep(400); // every value "expiring" above has expired
            assertEqualsAScan(trees, raw, "once every expiry passed, seed " + seed);
        }
    }

    @Test
    void aBuildWhileWritersGoOnEqualsAScanOnceTheyStop() throws Exception {
        for (int attempt = 0; attempt < 3; attempt++) {
            Store raw = lsm("build" + attempt);
            Random fill = new Random(attempt);
            List<Entry> batch = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                batch.add(randomEntry(fill, 20_000, 1_000));
                if (batch.size() == 500) {
                    raw.write(batch);
                    batch = new ArrayList<>();
                }
            }
            // held versions for every key, for fewer than the keys, for none
            long[] heldBytes = {HeldVersions.DEFAULT_BYTES, 64 << 10, 0};
            HashTrees trees = new HashTrees(VIEW, raw, heldBytes[attempt]);
            Store tracked = trees.tracked();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                int seed = attempt * 10 + w;
                Thread t = new Thread(() -> {
                    Random r = new Random(seed);
                    long base = 2_000;
                    try {
                        while (!stop.get()) {
                            List<Entry> es = new ArrayList<>();
                            for (int j = 0; j < 1 + r.nextInt(8); j++) es.add(randomEntry(r, 20_000, base++));
                            tracked.write(es);
                        }
                    } catch (Throwable e) {
                        failed.set(e);
                    }
                });
                t.start();
                writers.add(t);
            }
            try {
                Thread.sleep(20);
                TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false);
                Thread.sleep(50); // writes go on after the build, through the live trees
            } finally {
                stop.set(true);
                for (Thread t : writers) t.join();
            }
            assertThat(failed.get()).isNull();
            assertEqualsAScan(trees, raw, "after a build under writes, attempt " + attempt);
            // and a second build (the periodic one) while the live trees are in use
            stop.set(false);
            writers.clear();
            Thread t = new Thread(() -> {
                Random r = new Random(99);
                try {
                    while (!stop.get()) tracked.write(List.of(randomEntry(r, 20_000, 5_000)));
                } catch (Throwable e) {
                    failed.set(e);
                }
            });
            t.start();
            try {
                TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false);
            } finally {
                stop.set(true);
                t.join();
            }
            assertThat(failed.get()).isNull();
            assertEqualsAScan(trees, raw, "after a rebuild under writes, attempt " + attempt);
        }
    }

    @Test
    void onceBuiltAWriteLearnsWhatItReplacesWithoutReadingTheStore() throws Exception {
        MemoryStore raw = new MemoryStore();
        HashTrees trees = new HashTrees(VIEW, raw);
        for (int i = 0; i < 5_000; i++) raw.put(b("k" + i), b("v"), 10);
        TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false);
        long before = raw.reads.get();
        Random r = new Random(7);
        // unique timestamps in random order: no ties (which are read back), and older versions lose
        List<Long> stamps = new ArrayList<>();
        for (long t = 11; t < 11 + 20_000; t++) stamps.add(t);
        java.util.Collections.shuffle(stamps, r);
        for (int i = 0; i < 20_000; i++) {
            // overwrites, older versions that lose, deletes, and new keys, alone and in batches
            byte[] key = b("k" + r.nextInt(8_000));
            long ts = stamps.get(i);
            if (i % 5 == 0) {
                trees.tracked().write(List.of(Entry.tombstone(key, ts), Entry.value(b("n" + i), b("w"), ts)));
            } else {
                trees.tracked().put(key, b("w" + i), ts);
            }
        }
        assertThat(raw.reads.get() - before).as("store reads by tracked writes once built").isZero();
        assertEqualsAScan(trees, raw, "after writes that read nothing");
    }

    /**
     * A write made at once ({@link Store#tryWrite}, by an event loop) is tracked as any other,
     * without a store read; one whose old version only the store knows declines, writing nothing.
     */
    @Test
    void onceBuiltAWriteTakenAtOnceIsTrackedAndOneThatWouldReadTheStoreDeclines() throws Exception {
        MemoryStore raw = new MemoryStore();
        raw.takesWritesAtOnce = true;
        HashTrees trees = new HashTrees(VIEW, raw);
        for (int i = 0; i < 1_000; i++) raw.put(b("k" + i), b("v"), 10);
        TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false);
        long before = raw.reads.get();
        Store tracked = trees.tracked();
        for (int i = 0; i < 2_000; i++) {
            // overwrites (newer and older), deletes, new keys, alone and in batches of distinct keys
            byte[] key = b("k" + i % 1_500);
            long ts = 11 + i;
            List<Entry> write = i % 3 == 0
                    ? List.of(Entry.tombstone(key, ts), Entry.value(b("n" + i), b("w"), ts))
                    : List.of(Entry.value(key, b("w" + i), i % 7 == 0 ? 5 : ts));
            assertThat(tracked.tryWrite(write)).as("write " + i).isTrue();
        }
        assertThat(raw.reads.get() - before).as("store reads by writes taken at once").isZero();
        assertEqualsAScan(trees, raw, "after writes taken at once");

        // a tie with what the trees hold must be read back after the write: declined, unwritten
        assertThat(tracked.tryWrite(List.of(Entry.value(b("k701"), b("tie"), 712)))).isFalse();
        assertThat(raw.get(b("k701")).value()).isEqualTo(b("w701"));
        // a key twice in one batch: declined
        assertThat(tracked.tryWrite(List.of(Entry.value(b("d"), b("1"), 50_000), Entry.value(b("d"), b("2"), 50_001)))).isFalse();
        assertThat(raw.get(b("d"))).isNull();
    }

    @Test
    void writesBeforeAnyBuildPassThroughAndTheBuildCountsThem() throws Exception {
        MemoryStore raw = new MemoryStore();
        HashTrees trees = new HashTrees(VIEW, raw);
        for (int i = 0; i < 500; i++) trees.tracked().put(b("k" + i), b("v"), 10);
        assertThat(trees.snapshot(VIEW, "http://b", System::currentTimeMillis)).as("not built").isNull();
        TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false);
        assertEqualsAScan(trees, raw, "after the build");
    }

    @Test
    void aWriteWhoseOutcomeCannotBeReadOrAPurgeLeavesTheTreesInexactUntilRebuilt() throws Exception {
        MemoryStore raw = new MemoryStore();
        HashTrees trees = new HashTrees(VIEW, raw);
        TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false);
        for (int i = 0; i < 100; i++) trees.tracked().put(b("k" + i), b("v"), 10);
        assertEqualsAScan(trees, raw, "after writes");

        // refused before anything is written: read back, still exact
        raw.refusedKey = "k7";
        assertThatThrownBy(() -> trees.tracked().put(b("k7"), b("w"), 20)).isInstanceOf(IllegalArgumentException.class);
        raw.refusedKey = null;
        assertEqualsAScan(trees, raw, "after a refused write");

        raw.failing = true;
        assertThatThrownBy(() -> trees.tracked().write(List.of(Entry.value(b("k1"), b("w"), 20))))
                .isInstanceOf(IOException.class);
        raw.failing = false;
        // the write failed and so did the read of what it left: the trees cannot tell, until rebuilt
        assertThat(trees.exact()).as("after a write whose outcome could not be read").isFalse();
        TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false);
        assertEqualsAScan(trees, raw, "after the rebuild that follows it");

        trees.tracked().purge(e -> new String(e.key(), StandardCharsets.UTF_8).startsWith("k1"));
        assertThat(trees.snapshot(VIEW, "http://b", System::currentTimeMillis)).as("after a purge").isNull();
        TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false);
        assertEqualsAScan(trees, raw, "after the rebuild that follows a purge");
    }

    @Test
    void aWriteThatFailsOnceWrittenIsCountedAndOneWhoseOutcomeCannotBeReadDrifts() throws Exception {
        for (boolean batch : new boolean[] {false, true}) {
            MemoryStore raw = new MemoryStore();
            HashTrees trees = new HashTrees(VIEW, raw);
            TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false);
            for (int i = 0; i < 100; i++) trees.tracked().put(b("k" + i), b("v"), 10);
            List<Entry> write = batch
                    ? List.of(Entry.value(b("k1"), b("w"), 20), Entry.tombstone(b("k2"), 20), Entry.value(b("new"), b("w"), 20))
                    : List.of(Entry.value(b("k1"), b("w"), 20));

            raw.failAfterWriting = true;
            assertThatThrownBy(() -> trees.tracked().write(write)).isInstanceOf(IOException.class);
            assertEqualsAScan(trees, raw, "after a write that failed once written, batch " + batch);

            raw.readsFailAfter = true;
            List<Entry> next = batch
                    ? List.of(Entry.value(b("k3"), b("w"), 30), Entry.value(b("k4"), b("w"), 30))
                    : List.of(Entry.value(b("k3"), b("w"), 30));
            assertThatThrownBy(() -> trees.tracked().write(next)).isInstanceOf(IOException.class);
            raw.failing = false;
            raw.failAfterWriting = false;
            assertThat(trees.exact()).as("the outcome could not be read back, batch %s", batch).isFalse();
            TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false);
            assertEqualsAScan(trees, raw, "after the rebuild, batch " + batch);
        }
    }

    @Test
    void aNewMembershipVersionMakesTheTreesFollowItsPeersAndReplicaSetsOnceRebuilt() throws Exception {
        MemoryStore raw = new MemoryStore();
        HashTrees trees = new HashTrees(VIEW, raw);
        Store tracked = trees.tracked();
        for (int i = 0; i < 10_000; i++) tracked.put(b("k" + i), b("v"), 10);
        assertThat(TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false)).isTrue();
        assertEqualsAScan(trees, raw, "on the first version");

        // A fourth node joins and the replication factor goes to 3.
        List<String> grown = List.of("http://a", "http://b", "http://c", "http://d");
        ExchangePeers next = new ExchangePeers(2, SELF, List.of("http://b", "http://c", "http://d"),
                new Placement(grown), 3);
        trees.retarget(next);
        assertThat(trees.tracked()).as("the write paths keep their store").isSameAs(tracked);
        assertThat(trees.snapshot(VIEW, "http://b", System::currentTimeMillis)).as("old version").isNull();
        assertThat(trees.snapshot(next, "http://d", System::currentTimeMillis)).as("not built for it yet").isNull();
        for (int i = 0; i < 1_000; i++) tracked.put(b("k" + i), b("w"), 20);

        // A build under way when the version moves again is dropped, not made live.
        ExchangePeers third = new ExchangePeers(3, SELF, next.peers(), next.placement(), 2);
        AtomicBoolean moved = new AtomicBoolean();
        int[] chunks = {0};
        boolean completed = TreeBuild.run(trees, ByteRate.UNLIMITED, () -> {
            if (++chunks[0] == 2 && moved.compareAndSet(false, true)) trees.retarget(third);
            return false;
        });
        assertThat(moved).as("the store spans more than one chunk").isTrue();
        assertThat(completed).as("a build dropped by a retarget").isFalse();
        assertThat(trees.snapshot(third, "http://d", System::currentTimeMillis)).isNull();

        for (int i = 0; i < 1_000; i++) tracked.put(b("k" + i), b("x"), 30);
        assertThat(TreeBuild.run(trees, ByteRate.UNLIMITED, () -> false)).isTrue();
        assertEqualsAScan(trees, raw, "rebuilt for the third version");
        for (int i = 0; i < 1_000; i++) tracked.delete(b("k" + i), 40);
        assertEqualsAScan(trees, raw, "kept on write for the third version");
        assertThat(trees.snapshot(next, "http://d", System::currentTimeMillis)).as("asked for another version").isNull();
    }
}
