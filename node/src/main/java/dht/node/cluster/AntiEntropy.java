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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Always-on anti-entropy (docs/cluster.md, "Anti-entropy"): every {@code interval} this node builds,
 * in one paced scan of its store, a {@link MerkleTree} per peer over the keys whose replica set
 * (the first replication-factor members of the key's placement) holds both nodes, then exchanges with
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
 *
 * <p>Peers and replica sets follow the agreed membership: each round (and each peer's request)
 * reads the current version, and its members are the peers and the nodes placement picks among
 * (a joining node gets its data from the stream, not from here, and is a peer once it is a
 * member; a node that is not a member exchanges with no one). Both sides of an exchange must be
 * on the same version: each request names the asker's, a peer on another answers
 * {@link OtherMembershipVersion}, and an exchange stops when this node's version changes under
 * it, so that keys are never moved by a replica set one side no longer has (a cleaned-up copy
 * would come back).
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
    /** The agreed membership, read each round and on each peer's request. */
    private final Supplier<Membership> membership;
    private volatile ExchangePeers view;
    private final Store store;
    private final ReplicaService local;
    private final TreeTransport transport;
    private final Duration interval;
    private final ByteRate rate;
    private final PurgeHorizon horizon;
    /** By peer, every peer this node has had since start; only current peers are shown. */
    private final Map<String, ExchangeCounts> counts = new ConcurrentHashMap<>();
    /** Serves peers' requests, apart from the exchanges this node starts, so two nodes never wait on each other. */
    private final ExecutorService server;
    private final Thread worker;
    private volatile Trees latest;
    private volatile boolean closed;

    /**
     * The trees of one scan, by peer, with how many keys each covers; {@code scanStartMillis}: the
     * scan's start by the {@link PurgeHorizon}'s clock (every entry held then is in the trees).
     */
    private record Trees(ExchangePeers view, long builtNanos, long scanStartMillis, Map<String, MerkleTree> byPeer,
                         Map<String, Long> keys) {
    }

    /** A peer's request made on another membership version than this node's (it answers 409). */
    public static final class OtherMembershipVersion extends RuntimeException {
        OtherMembershipVersion(String peer, long theirs, long mine) {
            super(peer + " asks on membership version " + theirs + ", this node is on " + mine, null, false, false);
        }
    }

    /** This node's membership version changed during an exchange: it stops, not counted as a failure. */
    private static final class MembershipMoved extends RuntimeException {
        MembershipMoved() {
            super("the membership version changed", null, false, false);
        }
    }

    /**
     * @param membership     the agreed membership, read each time (its members and replication factor)
     * @param interval       how often each peer is exchanged with; zero: never (peers' requests are
     *                       still served)
     * @param bytesPerSecond the budget for scanned, received and sent bytes (0: no limit)
     * @param horizon        told of every exchange that completes in full
     */
    AntiEntropy(String self, Supplier<Membership> membership, Store store, ReplicaService local,
                TreeTransport transport, Duration interval, long bytesPerSecond, PurgeHorizon horizon) {
        this.self = self;
        this.membership = membership;
        this.store = store;
        this.local = local;
        this.transport = transport;
        this.interval = interval;
        this.rate = new ByteRate(bytesPerSecond);
        this.horizon = horizon;
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

    /** Per current peer: when the last exchange this node started with it ended, and what it moved, since start. */
    public Map<String, Map<String, Long>> counts() {
        Map<String, Map<String, Long>> m = new LinkedHashMap<>();
        for (String peer : view().peers()) m.put(peer, counts(peer).snapshot());
        return m;
    }

    private ExchangeCounts counts(String peer) {
        return counts.computeIfAbsent(peer, p -> new ExchangeCounts());
    }

    /** The view of the current membership version (built once per version). */
    private ExchangePeers view() {
        Membership m = membership.get();
        ExchangePeers v = view;
        if (v == null || v.version() != m.version()) {
            v = ExchangePeers.of(self, m);
            view = v;
        }
        return v;
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
        for (String peer : trees.view().peers()) {
            if (closed || view().version() != trees.view().version()) return; // the next round follows it
            long before = counts(peer).keysReceived.sum();
            exchange(peer, trees);
            if (counts(peer).keysReceived.sum() != before) {
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
        ExchangeCounts c = counts(peer);
        long t0 = System.nanoTime();
        long failuresBefore = c.failures.sum();
        long version = trees.view().version();
        try {
            MerkleTree theirs = await(transport.tree(peer, version));
            long treeBytes = (long) MerkleTree.LEAVES * Long.BYTES;
            c.bytesReceived.add(treeBytes);
            rate.spend(treeBytes);
            BitSet differing = trees.byPeer().get(peer).diff(theirs);
            c.keysCompared.add(trees.keys().get(peer));
            c.differingLeaves.add(differing.cardinality());
            byte[] start = differing.isEmpty() ? null : FIRST;
            while (start != null && !closed) {
                stillOn(version);
                TreePage page = await(transport.page(peer, version, differing, start));
                c.bytesReceived.add(page.bytes());
                rate.spend(page.bytes());
                reconcile(trees.view(), peer, differing, start, page, c);
                start = page.next();
            }
            c.exchanges.increment();
            if (start == null && c.failures.sum() == failuresBefore) {
                horizon.exchangeCompleted(peer, trees.scanStartMillis());
                c.lastFullExchangeScanMillis.set(trees.scanStartMillis());
            }
        } catch (MembershipMoved e) {
            log.debug("anti-entropy exchange with {} stopped: {}", peer, e.getMessage());
        } catch (IOException | RuntimeException | ExecutionException | TimeoutException e) {
            c.failures.increment();
            log.debug("anti-entropy exchange with {} failed: {}", peer, e.toString());
        } finally {
            c.lastExchangeMillis.set(System.currentTimeMillis());
            c.lastExchangeDurationMillis.set((System.nanoTime() - t0) / 1_000_000);
        }
    }

    /** Throws {@link MembershipMoved} when this node is no longer on membership {@code version}. */
    private void stillOn(long version) {
        if (view().version() != version) throw new MembershipMoved();
    }

    /**
     * Compares the peer's page with this node's entries in the same key range and leaves: writes
     * here what the peer has newer or alone, pushes there what this node has newer or alone; only
     * keys both replicate under {@code view}.
     */
    private void reconcile(ExchangePeers view, String peer, BitSet leaves, byte[] start, TreePage page, ExchangeCounts c)
            throws IOException, InterruptedException, ExecutionException, TimeoutException {
        List<Entry> mine = new ArrayList<>();
        long scanned = 0;
        try (CloseableIterator<Entry> it = store.scan(start, page.next())) {
            while (it.hasNext()) {
                Entry e = it.next();
                scanned += wireSize(e);
                if (leaves.get(MerkleTree.leafOf(e.key())) && view.shares(e.key(), peer)) mine.add(e.owned());
            }
        }
        rate.spend(scanned);
        List<Entry> theirs = new ArrayList<>(page.entries().size());
        for (Entry t : page.entries()) {
            if (view.shares(t.key(), peer)) theirs.add(t);
        }
        stillOn(view.version());
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        Push push = new Push(peer, view.version(), c);
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
        private final long version;
        private final ExchangeCounts c;
        private final List<Entry> batch = new ArrayList<>();
        private long bytes;

        Push(String peer, long version, ExchangeCounts c) {
            this.peer = peer;
            this.version = version;
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
            stillOn(version);
            await(transport.push(peer, List.copyOf(batch)));
            c.keysSent.add(batch.size());
            c.bytesSent.add(bytes);
            batch.clear();
            bytes = 0;
        }
    }

    /**
     * {@code peer}'s tree over the keys it shares with this node (a peer's request; never blocks the
     * caller), the peer on membership {@code version} (0: not said, taken as this node's).
     */
    public CompletableFuture<MerkleTree> tree(String peer, long version) {
        return CompletableFuture.supplyAsync(() -> {
            ExchangePeers v = checkPeer(peer, version);
            Trees t = latest;
            // The trees of this node's last round, while fresh and of this version; else (exchanges
            // off, just started, or a new version) a scan now, unpaced, so that the call does not time out.
            long maxAgeNanos = Math.max(2 * interval.toNanos(), 0);
            if (t == null || t.view().version() != v.version() || System.nanoTime() - t.builtNanos() > maxAgeNanos) {
                try {
                    t = build(false);
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            return t.byPeer().get(peer);
        }, server);
    }

    /**
     * One page of the entries {@code peer} shares with this node under {@code leaves}, from
     * {@code start} (a peer's request), the peer on membership {@code version} (0: not said).
     */
    public CompletableFuture<TreePage> page(String peer, long version, BitSet leaves, byte[] start) {
        return CompletableFuture.supplyAsync(() -> {
            ExchangePeers v = checkPeer(peer, version);
            List<Entry> out = new ArrayList<>();
            long bytes = 0;
            int scanned = 0;
            try (CloseableIterator<Entry> it = store.scan(start, null)) {
                while (it.hasNext()) {
                    Entry e = it.next();
                    if (leaves.get(MerkleTree.leafOf(e.key())) && v.shares(e.key(), peer)) {
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

    /** The current view, when {@code peer} is a peer in it and asks on its version (0: any). */
    private ExchangePeers checkPeer(String peer, long version) {
        ExchangePeers v = view();
        if (version != 0 && version != v.version()) throw new OtherMembershipVersion(peer, version, v.version());
        if (!v.peers().contains(peer)) throw new IllegalArgumentException("not a peer: " + peer);
        return v;
    }

    /** Scans the store once and builds a tree per peer; {@code paced}: spending the byte budget. */
    private Trees build(boolean paced) throws IOException, InterruptedException {
        ExchangePeers view = view();
        long scanStartMillis = horizon.nowMillis();
        Map<String, MerkleTree> byPeer = new HashMap<>();
        Map<String, Long> keys = new HashMap<>();
        if (view.peers().isEmpty()) return new Trees(view, System.nanoTime(), scanStartMillis, byPeer, keys);
        for (String p : view.peers()) {
            byPeer.put(p, new MerkleTree());
            keys.put(p, 0L);
        }
        long unpaid = 0;
        try (CloseableIterator<Entry> it = store.scan(FIRST, null)) {
            while (it.hasNext()) {
                Entry e = it.next();
                for (String r : view.holders(e.key())) {
                    MerkleTree tree = byPeer.get(r);
                    if (tree == null) continue; // self
                    tree.add(e);
                    keys.merge(r, 1L, Long::sum);
                }
                unpaid += wireSize(e);
                if (paced && unpaid >= 64 << 10) {
                    rate.spend(unpaid);
                    unpaid = 0;
                }
                if (closed) throw new InterruptedException("closed");
            }
        }
        return new Trees(view, System.nanoTime(), scanStartMillis, byPeer, keys);
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
