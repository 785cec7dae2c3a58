package dht.node.cluster;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.Store;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
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
 * Always-on anti-entropy (docs/cluster.md, "Anti-entropy"): this node keeps a hash tree per peer
 * over the versions whose replica set (the first members of the key's placement, as many as the
 * version's write asked for: {@link ExchangePeers#holders}) holds both nodes, updated on every write ({@link HashTrees}, built once by a paced scan), and
 * every {@code interval} exchanges with each peer in turn: it fetches the peer's tree, compares it
 * with a snapshot of its own, and for the leaves that differ pages through the peer's entries
 * beside its own, writing locally what the peer has newer or alone and pushing to the peer what
 * this node has newer or alone. Leaves that differ are compared again a moment later, until the
 * set stops shrinking, and only those that still differ are paged: writes in flight between two
 * snapshots (a replica write that reached one node a few milliseconds before the other) make
 * leaves differ that agree at the next comparison. A leaf paged before is not paged again while
 * nothing in it changed on this node and the peer's hash of it stands ({@link QuietLeaves}).
 * Both nodes of a pair run exchanges, so a pair is compared at least once per interval from each side.
 *
 * <p>Invariants: only versions some replica holds travel, with their original timestamps, through
 * the replica write path on both sides (newest wins), so an exchange never undoes a newer write;
 * tombstones travel like values. All work runs on threads of its own (never an event loop), reads
 * the store through its scan API, and spends a shared bytes-per-second budget for what it scans,
 * receives and sends, so it yields to foreground work. The trees are built again by a paced scan
 * every {@link #REBUILD_EVERY} and whenever they may have drifted from the store (a purge), as a
 * safety net; while they are not exact, exchanges and the peers' tree requests fail.
 *
 * <p>An exchange that completes in full, paging every leaf that differs, tells the {@link
 * PurgeHorizon} when this node's first snapshot of it was taken: everything this node held then is
 * on the peer now, or something newer.
 *
 * <p>Peers and replica sets follow the agreed membership: each round (and each peer's request)
 * reads the current version, and its members are the peers and the nodes placement picks among
 * (a joining node gets its data from the stream, not from here, and is a peer once it is a
 * member; a node that is not a member exchanges with no one). Both sides of an exchange must be
 * on the same version: each request names the asker's, a peer on another answers
 * {@link OtherMembershipVersion}, and an exchange stops when this node's version changes under
 * it, so that keys are never moved by a replica set one side no longer has (a cleaned-up copy
 * would come back). A new version retargets the trees ({@link HashTrees#retarget}): they are
 * built again for its peers and replica sets, and until then no exchange runs and no tree is
 * served; a snapshot is only used for the version it was built for.
 */
public final class AntiEntropy implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AntiEntropy.class);
    /** A page of a peer's entries stops once it holds this many bytes ... */
    static final long PAGE_BYTES = 1L << 20;
    /** ... or once the peer scanned this many entries for it, so one request stays short. */
    static final int PAGE_SCAN_LIMIT = 50_000;
    /** How often the trees are built again by a scan, whether or not they may have drifted. */
    static final Duration REBUILD_EVERY = Duration.ofHours(1);
    /** How long after a first comparison that differs the trees are compared again. */
    static final Duration CONFIRM_DELAY = Duration.ofMillis(500);
    /** The comparisons of the trees in one exchange while leaves differ, the first included ... */
    static final int MIN_COMPARISONS = 3;
    /** ... and the most, when each one still takes some leaves away. */
    static final int MAX_COMPARISONS = 6;
    private static final long CALL_TIMEOUT_SECONDS = 60;
    private static final byte[] FIRST = new byte[0];

    private final String self;
    /** The agreed membership, read each round and on each peer's request. */
    private final Supplier<Membership> membership;
    private volatile ExchangePeers view;
    /** Moves {@code view} and the trees' view together, in the membership's order. */
    private final Object viewLock = new Object();
    private final HashTrees trees;
    private final Store store;
    private final ReplicaService local;
    private final TreeTransport transport;
    private final Duration interval;
    private final ByteRate rate;
    private final PurgeHorizon horizon;
    /** By peer, every peer this node has had since start; only current peers are shown. */
    private final Map<String, ExchangeCounts> counts = new ConcurrentHashMap<>();
    /** By peer, the leaves exchanges need not page again (the worker's alone). */
    private final Map<String, QuietLeaves> quiet = new ConcurrentHashMap<>();
    /** Serves peers' requests, apart from the exchanges this node starts, so two nodes never wait on each other. */
    private final ExecutorService server;
    private final Thread worker;
    /** One build at a time: the worker's, or one a peer's request needs. */
    private final Object building = new Object();
    private volatile boolean closed;

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
     * @param trees          the hash trees over this node's store; {@code local} must write through
     *                       {@link HashTrees#tracked()}
     * @param interval       how often each peer is exchanged with; zero: never (peers' requests are
     *                       still served)
     * @param bytesPerSecond the budget for scanned, received and sent bytes (0: no limit)
     * @param horizon        told of every exchange that completes in full
     */
    AntiEntropy(String self, Supplier<Membership> membership, HashTrees trees, ReplicaService local,
                TreeTransport transport, Duration interval, long bytesPerSecond, PurgeHorizon horizon) {
        this.self = self;
        this.membership = membership;
        this.trees = trees;
        this.store = trees.tracked();
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

    /** Per current peer: its last exchange's end, what it moved. Never retargets the trees: the status asks on an event loop. */
    public Map<String, Map<String, Long>> counts() {
        ExchangePeers v = view;
        if (v == null || v.version() != membership.get().version()) v = ExchangePeers.of(self, membership.get());
        Map<String, Map<String, Long>> m = new LinkedHashMap<>();
        for (String peer : v.peers()) m.put(peer, counts(peer).snapshot());
        return m;
    }

    private ExchangeCounts counts(String peer) {
        return counts.computeIfAbsent(peer, p -> new ExchangeCounts());
    }

    /** The view of the current membership version (built once per version); the trees follow it. */
    private ExchangePeers view() {
        ExchangePeers v = view;
        if (v != null && v.version() == membership.get().version()) return v;
        synchronized (viewLock) {
            Membership m = membership.get();
            v = view;
            if (v == null || v.version() != m.version()) {
                v = ExchangePeers.of(self, m);
                trees.retarget(v);
                view = v;
            }
            return v;
        }
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

    /** One round: the trees built if they need to be, then an exchange with each peer in turn. */
    void round() throws IOException, InterruptedException {
        ExchangePeers v = view();
        quiet.keySet().retainAll(v.peers()); // ~100 KB each: none kept for a peer that left
        if (v.peers().isEmpty()) return; // not a member: no trees to keep
        ensureTrees(true);
        for (String peer : v.peers()) {
            if (closed || view().version() != v.version()) return; // the next round follows it
            exchange(peer, v);
        }
    }

    /**
     * Builds the trees, for the view they follow, unless they are exact and younger than
     * {@link #REBUILD_EVERY}; {@code paced}:
     * spending the byte budget (a peer's request builds unpaced, so that its call does not time out).
     */
    private void ensureTrees(boolean paced) throws IOException, InterruptedException {
        synchronized (building) {
            if (trees.exact() && System.nanoTime() - trees.builtNanos() < REBUILD_EVERY.toNanos()) return;
            long t0 = System.nanoTime();
            if (!TreeBuild.run(trees, paced ? rate : ByteRate.UNLIMITED, () -> closed)) {
                log.info("anti-entropy trees' build dropped: the membership changed, another build follows");
                return;
            }
            log.info("anti-entropy trees built for membership version {} in {} ms{}", trees.view().version(),
                    (System.nanoTime() - t0) / 1_000_000,
                    trees.exact() ? "" : "; the store changed behind them meanwhile, another build follows");
        }
    }

    /** Builds the trees again now, unpaced (what {@link #REBUILD_EVERY} does, for tests). */
    void rebuildTrees() throws IOException, InterruptedException {
        synchronized (building) {
            TreeBuild.run(trees, ByteRate.UNLIMITED, () -> closed);
        }
    }

    /**
     * One exchange with {@code peer}; a failure is counted and logged, and the next round tries
     * again. One that went through every differing leaf with no failure completed in full.
     */
    private void exchange(String peer, ExchangePeers view) throws InterruptedException {
        ExchangeCounts c = counts(peer);
        long t0 = System.nanoTime();
        long failuresBefore = c.failures.sum();
        long version = view.version();
        try {
            long built = trees.builtNanos();
            QuietLeaves q = quiet.computeIfAbsent(peer, p -> new QuietLeaves());
            long[] changes = q.begin(version, built, t0, trees::leafChanges);
            HashTrees.Snapshot mine = snapshot(view, peer);
            Compared last = new Compared(mine.tree(), fetchTree(peer, version, c));
            BitSet differing = last.mine().diff(last.theirs());
            int skipped = q.skip(differing, last.mine(), last.theirs(), trees::leafChanges);
            last = confirmed(view, peer, differing, last, c);
            skipped += q.skip(differing, last.mine(), last.theirs(), trees::leafChanges);
            c.quietLeaves.add(skipped);
            c.keysCompared.add(mine.keys());
            c.differingLeaves.add(differing.cardinality());
            byte[] start = differing.isEmpty() ? null : FIRST;
            while (start != null && !closed) {
                stillOn(version);
                TreePage page = await(transport.page(peer, version, differing, start));
                c.bytesReceived.add(page.bytes());
                rate.spend(page.bytes());
                reconcile(view, peer, differing, start, page, c);
                start = page.next();
            }
            c.exchanges.increment();
            if (start == null && c.failures.sum() == failuresBefore) {
                q.record(differing, changes, last.mine(), last.theirs());
                if (skipped == 0) { // a skipped leaf was not looked at: no claim (QuietLeaves)
                    horizon.exchangeCompleted(peer, mine.takenMillis());
                    c.lastFullExchangeScanMillis.set(mine.takenMillis());
                }
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

    /**
     * Narrows {@code differing} to the leaves that still differ when compared again, {@link
     * #CONFIRM_DELAY} apart, until none is left: {@link #MIN_COMPARISONS} comparisons in all, and
     * past those more only while the last took some leaves away, up to {@link #MAX_COMPARISONS}.
     * A leaf that differs only by writes in flight at one comparison (hundreds of leaves under a
     * steady write load) agrees at the next, while one a replica missed differs at every one; each
     * leaf paged costs a scan of both stores, as a leaf's keys are spread over the whole key range.
     * Returns the last comparison ({@code first} when there was no other).
     */
    private Compared confirmed(ExchangePeers view, String peer, BitSet differing, Compared first, ExchangeCounts c)
            throws InterruptedException, ExecutionException, TimeoutException {
        Compared last = first;
        boolean shrank = true;
        for (int n = 1; n < MAX_COMPARISONS && !differing.isEmpty() && (n < MIN_COMPARISONS || shrank); n++) {
            TimeUnit.NANOSECONDS.sleep(CONFIRM_DELAY.toNanos());
            int before = differing.cardinality();
            last = new Compared(snapshot(view, peer).tree(), fetchTree(peer, view.version(), c));
            differing.and(last.mine().diff(last.theirs()));
            shrank = differing.cardinality() < before;
        }
        return last;
    }

    /** This node's tree for a peer and the peer's, compared once. */
    private record Compared(MerkleTree mine, MerkleTree theirs) {}

    /** Throws {@link MembershipMoved} when this node is no longer on membership {@code version}. */
    private void stillOn(long version) {
        if (view().version() != version) throw new MembershipMoved();
    }

    /**
     * A snapshot of this node's tree for {@code peer} under {@code view}; fails while the trees are
     * not exact, and stops the exchange when they follow another membership version now.
     */
    private HashTrees.Snapshot snapshot(ExchangePeers view, String peer) {
        stillOn(view.version());
        HashTrees.Snapshot s = trees.snapshot(view, peer, horizon::nowMillis);
        if (s != null) return s;
        stillOn(view.version());
        throw new IllegalStateException("this node's trees are being built");
    }

    private MerkleTree fetchTree(String peer, long version, ExchangeCounts c)
            throws InterruptedException, ExecutionException, TimeoutException {
        MerkleTree theirs = await(transport.tree(peer, version));
        long treeBytes = (long) MerkleTree.LEAVES * Long.BYTES;
        c.bytesReceived.add(treeBytes);
        rate.spend(treeBytes);
        return theirs;
    }

    /**
     * Compares the peer's page with this node's entries in the same key range and leaves: writes
     * here what the peer has newer or alone, pushes there what this node has newer or alone. Each
     * side sends the versions it shares with the other by their copies ({@link ExchangePeers#shares});
     * an older version the peer holds of a newer one not shared is shadowed ({@link
     * ExchangePeers#replacing}): the peer missed a write that asked for fewer copies.
     */
    private void reconcile(ExchangePeers view, String peer, BitSet leaves, byte[] start, TreePage page, ExchangeCounts c)
            throws IOException, InterruptedException, ExecutionException, TimeoutException {
        List<Entry> mine = new ArrayList<>();
        long scanned = 0;
        try (CloseableIterator<Entry> it = store.storedScan(start, page.next())) {
            while (it.hasNext()) {
                Entry e = it.next();
                scanned += wireSize(e);
                if (leaves.get(MerkleTree.leafOf(e.key()))) mine.add(e.owned());
            }
        }
        rate.spend(scanned);
        List<Entry> theirs = new ArrayList<>(page.entries().size());
        for (Entry t : page.entries()) {
            if (view.shares(t, peer)) theirs.add(t);
        }
        stillOn(view.version());
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        ExchangePush push = new ExchangePush(transport, rate, peer, () -> stillOn(view.version()), c);
        int i = 0;
        int j = 0;
        while (i < mine.size() || j < theirs.size()) {
            Entry m = i < mine.size() ? mine.get(i) : null;
            Entry t = j < theirs.size() ? theirs.get(j) : null;
            int cmp = m == null ? 1 : t == null ? -1 : Arrays.compareUnsigned(m.key(), t.key());
            if (cmp < 0) {
                if (view.shares(m, peer)) push.add(m);
                i++;
            } else if (cmp > 0) {
                writes.add(local.write(t, () -> null));
                j++;
            } else {
                if (t.supersedes(m)) writes.add(local.write(t, () -> null));
                else if (m.supersedes(t)) push.add(view.replacing(m, t, peer));
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

    /**
     * {@code peer}'s tree over the keys it shares with this node, as of now (a peer's request;
     * never blocks the caller), the peer on membership {@code version} (0: not said, taken as this
     * node's). Trees not built yet or not exact (exchanges off here, just started, or a new
     * version) are built first, unpaced, so that the peer's call does not time out.
     */
    public CompletableFuture<MerkleTree> tree(String peer, long version) {
        return CompletableFuture.supplyAsync(() -> {
            ExchangePeers v = checkPeer(peer, version);
            HashTrees.Snapshot s = trees.snapshot(v, peer, horizon::nowMillis);
            // With no worker of its own (exchanges off here), the hourly build is done here too.
            if (s == null || worker == null) {
                try {
                    ensureTrees(false);
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                s = trees.snapshot(v, peer, horizon::nowMillis);
            }
            if (s == null) {
                checkPeer(peer, version); // a version that moved meanwhile answers as such
                throw new IllegalStateException("this node's trees are being built");
            }
            return s.tree();
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
            try (CloseableIterator<Entry> it = store.storedScan(start, null)) {
                while (it.hasNext()) {
                    Entry e = it.next();
                    if (leaves.get(MerkleTree.leafOf(e.key())) && v.shares(e, peer)) {
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

    /**
     * What an entry costs in a pushed batch: its key, value and the framing of a write there
     * (ReplicaBatch: kind, key length, timestamp, expiry, value length), so that a batch counted
     * within ExchangePush's bound is within it on the wire too.
     */
    static long wireSize(Entry e) {
        return e.key().length + (e.isTombstone() ? 0 : e.valueLength()) + 25L;
    }

    /** The smallest key after {@code key}. */
    private static byte[] successor(byte[] key) { return Arrays.copyOf(key, key.length + 1); }

    static <T> T await(CompletableFuture<T> f) throws InterruptedException, ExecutionException, TimeoutException {
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
