package dht.node.cluster;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a leave or a removal moves this node's versions to the nodes that gain them: a scan of the
 * whole store, batched per gainer, each batch pushed as internal writes ({@link #send}), or kept
 * for a gainer that cannot take it now, by a live member ({@link #handOver}) or here
 * ({@link #keepFor}). Every byte is paced by the rebalance budget and counted in
 * {@link RebalanceCounts}. Logs under {@link Rebalancer}'s name.
 */
final class DataPush {
    private static final Logger log = LoggerFactory.getLogger(Rebalancer.class);
    private static final int PUSH_ENTRIES = 1_000;
    private static final long PUSH_BYTES = 256L << 10;
    private static final long KEEP_PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String self;
    private final MembershipChanges changes;
    private final PeerNetwork net;
    private final TreeTransport push;
    private final Store store;
    private final ByteRate rate;
    private final MembershipTransport transport;
    private final RebalanceCounts counts;
    private final WritesInFlight writes;
    private final BooleanSupplier closed;
    private final PushProgress progress;

    DataPush(String self, MembershipChanges changes, PeerNetwork net, Store store, ByteRate rate,
             MembershipTransport transport, RebalanceCounts counts, WritesInFlight writes, BooleanSupplier closed,
             PushProgress progress) {
        this.self = self;
        this.changes = changes;
        this.net = net;
        this.push = net.trees(self);
        this.store = store;
        this.rate = rate;
        this.transport = transport;
        this.counts = counts;
        this.writes = writes;
        this.closed = closed;
        this.progress = progress;
    }

    /** The nodes that gain a version: by its key and the copies its write asked for. */
    interface Gainers {
        List<String> of(Entry e);
    }

    interface Sender {
        void send(String peer, List<Entry> batch, long bytes) throws IOException;
    }

    /**
     * Sends each version of this node's store to the nodes {@code gainers} names, once the writes
     * it accepted under an earlier version are in the store; if they are not within the wait, it
     * fails ({@code orPushAnyway} false: the caller repeats it) or goes on all the same (true: for
     * what nothing repeats, a late write missed is better than every key).
     */
    void all(Gainers gainers, Sender sender, boolean orPushAnyway) throws IOException {
        all(null, gainers, sender, orPushAnyway);
    }

    /**
     * {@link #all(Gainers, Sender, boolean)}, resumed where a push of the same name was cut short
     * ({@link PushProgress}; {@code name} null: from the first key, and no progress kept). The
     * progress is the first key of the oldest batch not yet sent, so every key before it has gone
     * to each of its gainers; it is kept at most once a second, and cleared once the push is done.
     */
    void all(String name, Gainers gainers, Sender sender, boolean orPushAnyway) throws IOException {
        try {
            writes.awaitBeforeMoving("the push of this node's keys");
        } catch (WritesInFlight.StillInFlightException e) {
            if (!orPushAnyway) throw e;
            log.warn("{}; pushing all the same (anti-entropy or bin/dht repair brings any such write)", e.getMessage());
        }
        Map<String, List<Entry>> batches = new HashMap<>();
        Map<String, Long> sizes = new HashMap<>();
        byte[] start = name == null ? new byte[0] : progress.resumeAt(name);
        if (start.length > 0) {
            log.info("resuming the push {} at key {}: the keys before it were sent before this node stopped", name,
                    HexFormat.of().formatHex(start));
        }
        long keptNanos = System.nanoTime();
        try (CloseableIterator<Entry> it = store.scan(start, null)) {
            while (it.hasNext() && !closed.getAsBoolean()) {
                Entry e = it.next();
                long size = RebalanceCounts.bytesOf(e);
                counts.scanned(size);
                boolean sent = false;
                for (String g : gainers.of(e)) {
                    // Each batch is within PUSH_BYTES or is one version alone: a peer takes an
                    // internal body of one value at its --max-body, not more (RequestAssembler).
                    List<Entry> held = batches.get(g);
                    if (held != null && sizes.get(g) + size > PUSH_BYTES) {
                        sender.send(g, held, sizes.get(g));
                        batches.remove(g);
                        sizes.remove(g);
                        sent = true;
                    }
                    List<Entry> b = batches.computeIfAbsent(g, x -> new ArrayList<>());
                    b.add(e);
                    long s = sizes.merge(g, size, Long::sum);
                    if (b.size() >= PUSH_ENTRIES || s >= PUSH_BYTES) {
                        sender.send(g, b, s);
                        batches.remove(g);
                        sizes.remove(g);
                        sent = true;
                    }
                }
                if (sent && name != null && System.nanoTime() - keptNanos > KEEP_PROGRESS_NANOS) {
                    keptNanos = System.nanoTime();
                    if (!keep(name, oldestUnsent(batches, e.key()))) name = null;
                }
            }
        }
        // Cut short, it must not pass for done: a leave would end with keys not pushed (its own
        // copies gone with it), a removal's mark would be cleared.
        if (closed.getAsBoolean()) throw new IOException("this node is stopping: the push was cut short");
        for (Map.Entry<String, List<Entry>> b : batches.entrySet()) sender.send(b.getKey(), b.getValue(), sizes.get(b.getKey()));
        if (name != null) keep(name, null);
    }

    /**
     * Keeps the push's progress ({@code at} null: the push is done). The progress only saves time
     * after a crash, so a failure to keep it (a full disk, which is a reason to drain a node) is
     * logged and the push goes on without it; false then.
     */
    private boolean keep(String name, byte[] at) {
        try {
            if (at != null) progress.at(name, at);
            else progress.clear();
            return true;
        } catch (IOException e) {
            log.warn("the progress of the push {} cannot be kept ({}); the push goes on, and starts over if cut short",
                    name, e.toString());
            return false;
        }
    }

    /**
     * Sends {@code entries} to {@code peer} by {@code sender} cut as {@link #all} cuts its batches:
     * each within {@link #PUSH_BYTES} and {@link #PUSH_ENTRIES}, or one version alone, so that
     * the peer takes each body (RequestAssembler).
     */
    static void inBatches(String peer, List<Entry> entries, Sender sender) throws IOException {
        List<Entry> b = new ArrayList<>();
        long bytes = 0;
        for (Entry e : entries) {
            long size = RebalanceCounts.bytesOf(e);
            if (!b.isEmpty() && (bytes + size > PUSH_BYTES || b.size() >= PUSH_ENTRIES)) {
                sender.send(peer, b, bytes);
                b = new ArrayList<>();
                bytes = 0;
            }
            b.add(e);
            bytes += size;
        }
        if (!b.isEmpty()) sender.send(peer, b, bytes);
    }

    /**
     * The first key not yet sent to all its gainers, {@code last} the key just scanned: the least
     * first key of the batches still held (each is in key order), else the key right after {@code last}.
     */
    static byte[] oldestUnsent(Map<String, List<Entry>> batches, byte[] last) {
        byte[] oldest = null;
        for (List<Entry> b : batches.values()) {
            byte[] k = b.getFirst().key();
            if (oldest == null || Arrays.compareUnsigned(k, oldest) < 0) oldest = k;
        }
        return oldest != null ? oldest : PushProgress.after(last);
    }

    /** Pushes {@code batch} to {@code peer}, marked as moved by the change at membership {@code change}: the peer counts it. */
    void send(String peer, List<Entry> batch, long bytes, long change) throws IOException {
        try {
            rate.spend(bytes);
            push.push(peer, batch, change).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("pushing to " + peer + ": " + (e.getCause() == null ? e : e.getCause()).getMessage());
        }
        counts.keysMoved.addAndGet(batch.size());
        counts.bytesMoved.addAndGet(bytes);
    }

    /** The member that keeps versions for {@code member} until it can take them: a live owner of {@code m} that did not miss it. */
    String holder(Membership m, String member) throws IOException {
        for (String o : m.owners()) {
            if (!o.equals(self) && !o.equals(member) && !m.laggards().contains(o) && net.isUp(o)) return o;
        }
        throw new IOException("no live member to keep the keys of " + member + " for it");
    }

    /** Hands {@code batch}, the versions {@code member} gains, to {@code holder}, which keeps them on disk for it. */
    void handOver(String holder, String member, List<Entry> batch, long bytes) throws IOException {
        try {
            rate.spend(bytes);
            transport.call(holder, "handover", "url=" + java.net.URLEncoder.encode(member, java.nio.charset.StandardCharsets.UTF_8),
                    HandOverBatch.encode(batch));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } catch (MembershipChangeException e) {
            throw new IOException("handing the keys of " + member + " to " + holder + ": " + e.getMessage());
        }
        counts.keysMoved.addAndGet(batch.size());
        counts.bytesMoved.addAndGet(bytes);
        counts.keysHandedOver.addAndGet(batch.size());
    }

    /** Keeps {@code batch}, versions {@code member} gains but missed the change for, here on disk until it is back. */
    void keepFor(String member, List<Entry> batch, long bytes) throws IOException {
        try {
            changes.handOver(member, batch);
        } catch (MembershipChangeException e) {
            throw new IOException("keeping the keys of " + member + ": " + e.getMessage());
        }
        counts.keysMoved.addAndGet(batch.size());
        counts.bytesMoved.addAndGet(bytes);
        counts.keysHandedOver.addAndGet(batch.size());
    }
}
