package dht.node.cluster;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.Store;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Always-on anti-entropy (docs/cluster.md, "Anti-entropy"): every {@code interval} this node builds,
 * in one paced scan of its store, a {@link MerkleTree} per peer over the keys whose replica set
 * (the first {@code replicas} nodes of the key's placement) holds both nodes, then exchanges with
 * each peer in turn: it fetches the peer's tree, and for the leaves that differ pages through the
 * peer's entries beside its own, writing locally what the peer has newer or alone and pushing to
 * the peer what this node has newer or alone. Both nodes of a pair run exchanges, so a pair is
 * compared at least once per interval from each side.
 *
 * <p>Invariants: only versions some replica holds travel, with their original timestamps, through
 * the replica write path on both sides (newest wins), so an exchange never undoes a newer write;
 * tombstones travel like values. All work runs on threads of its own (never an event loop), reads
 * the store through its scan API, and spends a shared bytes-per-second budget for what it scans,
 * receives and sends, so it yields to foreground work. Trees are rebuilt by a scan each round, not
 * updated on write.
 *
 * <p>An exchange that completes in full tells the {@link PurgeHorizon} when the scan behind this
 * node's trees started: everything this node held then is on the peer now, or something newer.
 */
public final class AntiEntropy implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AntiEntropy.class);
    /** A page of a peer's entries stops once it holds this many bytes ... */
    static final long PAGE_BYTES = 1L << 20;
    /** ... or once the peer scanned this many entries for it, so one request stays short. */
    static final int PAGE_SCAN_LIMIT = 50_000;
    private static final int PUSH_ENTRIES = 1_000;
    private static final long PUSH_BYTES = 512L << 10;
    private static final long CALL_TIMEOUT_SECONDS = 60;
    private static final byte[] FIRST = new byte[0];

    private final String self;
    private final List<String> peers;
    private final Placement placement;
    private final int replicas;
    private final Store store;
    private final ReplicaService local;
    private final TreeTransport transport;
    private final Duration interval;
    private final ByteRate rate;
    private final PurgeHorizon horizon;
    private final Map<String, ExchangeCounts> counts = new LinkedHashMap<>();
    /** Serves peers' requests, apart from the exchanges this node starts, so two nodes never wait on each other. */
    private final ExecutorService server;
    private final Thread worker;
    private volatile Trees latest;
    private volatile boolean closed;

    /**
     * The trees of one scan, by peer, with how many keys each covers; {@code scanStartMillis}: the
     * scan's start by the {@link PurgeHorizon}'s clock (every entry held then is in the trees).
     */
    private record Trees(long builtNanos, long scanStartMillis, Map<String, MerkleTree> byPeer, Map<String, Long> keys) {
    }

    /**
     * @param replicas       how many replicas a key has (the first of its placement order)
     * @param interval       how often each peer is exchanged with; zero: never (peers' requests are
     *                       still served)
     * @param bytesPerSecond the budget for scanned, received and sent bytes (0: no limit)
     * @param horizon        told of every exchange that completes in full
     */
    AntiEntropy(String self, List<String> nodes, Placement placement, int replicas, Store store, ReplicaService local,
                TreeTransport transport, Duration interval, long bytesPerSecond, PurgeHorizon horizon) {
        this.self = self;
        this.peers = nodes.stream().filter(n -> !n.equals(self)).toList();
        this.placement = placement;
        this.replicas = replicas;
        this.store = store;
        this.local = local;
        this.transport = transport;
        this.interval = interval;
        this.rate = new ByteRate(bytesPerSecond);
        this.horizon = horizon;
        for (String p : peers) counts.put(p, new ExchangeCounts());
        this.server = Executors.newSingleThreadExecutor(r -> daemon(r, "anti-entropy-server"));
        this.worker = interval.isPositive() ? daemon(this::run, "anti-entropy") : null;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        return t;
    }

    void start() {
        if (worker != null) worker.start();
    }

    /** Per peer: when the last exchange this node started with it ended, and what it moved, since start. */
    public Map<String, Map<String, Long>> counts() {
        Map<String, Map<String, Long>> m = new LinkedHashMap<>();
        counts.forEach((peer, c) -> m.put(peer, c.snapshot()));
        return m;
    }

    private void run() {
        while (!closed) {
            long roundStart = System.nanoTime();
            try {
                round();
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                log.warn("anti-entropy round failed: {}", e.toString());
            }
            long waitNanos = roundStart + interval.toNanos() - System.nanoTime();
            try {
                if (waitNanos > 0) TimeUnit.NANOSECONDS.sleep(waitNanos);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * One round: the trees, then an exchange with each peer in turn. The trees are built again
     * after an exchange that wrote here, so that the next peer is not asked for what this node
     * just received.
     */
    void round() throws IOException, InterruptedException {
        Trees trees = build(true);
        latest = trees;
        for (String peer : peers) {
            if (closed) return;
            long before = counts.get(peer).keysReceived.sum();
            exchange(peer, trees);
            if (counts.get(peer).keysReceived.sum() != before) {
                trees = build(true);
                latest = trees;
            }
        }
    }

    /**
     * One exchange with {@code peer}; a failure is counted and logged, and the next round tries
     * again. One that went through every differing leaf with no failure completed in full.
     */
    private void exchange(String peer, Trees trees) throws InterruptedException {
        ExchangeCounts c = counts.get(peer);
        long t0 = System.nanoTime();
        long failuresBefore = c.failures.sum();
        try {
            MerkleTree theirs = await(transport.tree(peer));
            long treeBytes = (long) MerkleTree.LEAVES * Long.BYTES;
            c.bytesReceived.add(treeBytes);
            rate.spend(treeBytes);
            BitSet differing = trees.byPeer().get(peer).diff(theirs);
            c.keysCompared.add(trees.keys().get(peer));
            c.differingLeaves.add(differing.cardinality());
            byte[] start = differing.isEmpty() ? null : FIRST;
            while (start != null && !closed) {
                TreePage page = await(transport.page(peer, differing, start));
                c.bytesReceived.add(page.bytes());
                rate.spend(page.bytes());
                reconcile(peer, differing, start, page, c);
                start = page.next();
            }
            c.exchanges.increment();
            if (start == null && c.failures.sum() == failuresBefore) {
                horizon.exchangeCompleted(peer, trees.scanStartMillis());
                c.lastFullExchangeScanMillis.set(trees.scanStartMillis());
            }
        } catch (IOException | RuntimeException | ExecutionException | TimeoutException e) {
            c.failures.increment();
            log.debug("anti-entropy exchange with {} failed: {}", peer, e.toString());
        } finally {
            c.lastExchangeMillis.set(System.currentTimeMillis());
            c.lastExchangeDurationMillis.set((System.nanoTime() - t0) / 1_000_000);
        }
    }

    /**
     * Compares the peer's page with this node's entries in the same key range and leaves: writes
     * here what the peer has newer or alone, pushes there what this node has newer or alone.
     */
    private void reconcile(String peer, BitSet leaves, byte[] start, TreePage page, ExchangeCounts c)
            throws IOException, InterruptedException, ExecutionException, TimeoutException {
        List<Entry> mine = new ArrayList<>();
        long scanned = 0;
        try (CloseableIterator<Entry> it = store.scan(start, page.next())) {
            while (it.hasNext()) {
                Entry e = it.next();
                scanned += wireSize(e);
                if (leaves.get(MerkleTree.leafOf(e.key())) && shares(e.key(), peer)) mine.add(e.owned());
            }
        }
        rate.spend(scanned);
        List<Entry> theirs = page.entries();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        Push push = new Push(peer, c);
        int i = 0;
        int j = 0;
        while (i < mine.size() || j < theirs.size()) {
            Entry m = i < mine.size() ? mine.get(i) : null;
            Entry t = j < theirs.size() ? theirs.get(j) : null;
            int cmp = m == null ? 1 : t == null ? -1 : Arrays.compareUnsigned(m.key(), t.key());
            if (cmp < 0) {
                push.add(m);
                i++;
            } else if (cmp > 0) {
                writes.add(local.write(t, () -> null));
                j++;
            } else {
                if (t.supersedes(m)) writes.add(local.write(t, () -> null));
                else if (m.supersedes(t)) push.add(m);
                i++;
                j++;
            }
        }
        push.flush();
        for (CompletableFuture<Void> w : writes) {
            try {
                await(w);
                c.keysReceived.increment();
            } catch (ExecutionException e) {
                c.failures.increment();
                log.debug("anti-entropy write from {} failed: {}", peer, e.getCause().toString());
            }
        }
    }

    /** Entries on their way to a peer, sent in batches of bounded size. */
    private final class Push {
        private final String peer;
        private final ExchangeCounts c;
        private final List<Entry> batch = new ArrayList<>();
        private long bytes;

        Push(String peer, ExchangeCounts c) {
            this.peer = peer;
            this.c = c;
        }

        void add(Entry e) throws InterruptedException, ExecutionException, TimeoutException {
            batch.add(e);
            bytes += wireSize(e);
            if (batch.size() >= PUSH_ENTRIES || bytes >= PUSH_BYTES) flush();
        }

        void flush() throws InterruptedException, ExecutionException, TimeoutException {
            if (batch.isEmpty()) return;
            rate.spend(bytes);
            await(transport.push(peer, List.copyOf(batch)));
            c.keysSent.add(batch.size());
            c.bytesSent.add(bytes);
            batch.clear();
            bytes = 0;
        }
    }

    /** {@code peer}'s tree over the keys it shares with this node (a peer's request; never blocks the caller). */
    public CompletableFuture<MerkleTree> tree(String peer) {
        return CompletableFuture.supplyAsync(() -> {
            checkPeer(peer);
            Trees t = latest;
            // The trees of this node's last round, while fresh; else (exchanges off, or just
            // started) a scan now, unpaced, so that the peer's call does not time out.
            long maxAgeNanos = Math.max(2 * interval.toNanos(), 0);
            if (t == null || System.nanoTime() - t.builtNanos() > maxAgeNanos) {
                try {
                    t = build(false);
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            return t.byPeer().get(peer);
        }, server);
    }

    /** One page of the entries {@code peer} shares with this node under {@code leaves}, from {@code start} (a peer's request). */
    public CompletableFuture<TreePage> page(String peer, BitSet leaves, byte[] start) {
        return CompletableFuture.supplyAsync(() -> {
            checkPeer(peer);
            List<Entry> out = new ArrayList<>();
            long bytes = 0;
            int scanned = 0;
            try (CloseableIterator<Entry> it = store.scan(start, null)) {
                while (it.hasNext()) {
                    Entry e = it.next();
                    if (leaves.get(MerkleTree.leafOf(e.key())) && shares(e.key(), peer)) {
                        out.add(e.owned());
                        bytes += wireSize(e);
                    }
                    if (bytes >= PAGE_BYTES || ++scanned >= PAGE_SCAN_LIMIT) {
                        if (!it.hasNext()) break;
                        return new TreePage(out, successor(e.key()), bytes);
                    }
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return new TreePage(out, null, bytes);
        }, server);
    }

    private void checkPeer(String peer) {
        if (!counts.containsKey(peer)) throw new IllegalArgumentException("not a peer: " + peer);
    }

    /** Scans the store once and builds a tree per peer; {@code paced}: spending the byte budget. */
    private Trees build(boolean paced) throws IOException, InterruptedException {
        long scanStartMillis = horizon.nowMillis();
        Map<String, MerkleTree> byPeer = new HashMap<>();
        Map<String, Long> keys = new HashMap<>();
        for (String p : peers) {
            byPeer.put(p, new MerkleTree());
            keys.put(p, 0L);
        }
        long unpaid = 0;
        try (CloseableIterator<Entry> it = store.scan(FIRST, null)) {
            while (it.hasNext()) {
                Entry e = it.next();
                List<String> holders = placement.replicas(e.key(), replicas);
                if (holders.contains(self)) {
                    for (String r : holders) {
                        MerkleTree tree = byPeer.get(r);
                        if (tree == null) continue; // self
                        tree.add(e);
                        keys.merge(r, 1L, Long::sum);
                    }
                }
                unpaid += wireSize(e);
                if (paced && unpaid >= 64 << 10) {
                    rate.spend(unpaid);
                    unpaid = 0;
                }
                if (closed) throw new InterruptedException("closed");
            }
        }
        return new Trees(System.nanoTime(), scanStartMillis, byPeer, keys);
    }

    private boolean shares(byte[] key, String peer) {
        List<String> r = placement.replicas(key, replicas);
        return r.contains(self) && r.contains(peer);
    }

    /** About what an entry costs on the wire: its key, value, timestamp and framing. */
    static long wireSize(Entry e) {
        return e.key().length + (e.isTombstone() ? 0 : e.valueLength()) + 16L;
    }

    /** The smallest key after {@code key}. */
    private static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    private static <T> T await(CompletableFuture<T> f) throws InterruptedException, ExecutionException, TimeoutException {
        return f.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        closed = true;
        server.shutdownNow();
        if (worker != null) {
            worker.interrupt();
            try {
                worker.join(5_000); // so that no round reads the store after its owner closes it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
