package dht.node.cluster;

import dht.node.exec.Completions;
import dht.storage.Entry;
import java.io.IOException;
import java.util.function.LongSupplier;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a peer missed, kept by the coordinator that stamped them and delivered when the peer is
 * seen up again, so that a replica that was down catches up without waiting for reads to repair
 * it key by key.
 *
 * <p>Invariants: a hint is the very entry the coordinator sent (same timestamp), so delivering it
 * late, twice, or after a newer write is harmless: the replica keeps the newer version. A peer has
 * at most one hint per key, the newest version (an older one is superseded, counted).
 * With {@link HintFiles} every hint held is appended to the peer's current hint file, and read back
 * when the node starts; each file counts the hints of it still held, and is deleted when that
 * reaches zero (delivered, dropped or superseded), so the files hold at least every hint held.
 * Memory then holds only an index ({@link Hint}: key, timestamp, file and offset): an entry is let
 * go once its file holds it, and read back from there for delivery ({@code lost} if it cannot be),
 * so a backlog's values never need the heap. Bounds: {@code maxBytes} of that index (with no files,
 * of the entries) over all peers and {@link HintSettings#bytesPerPeer} on disk
 * per peer (new hints past them dropped as {@code full}); a hint older than the window
 * ({@code expired}) or than the tombstone grace ({@code grace}: it could resurrect a deleted
 * value) is dropped instead of delivered. Delivery to a peer runs one batch at a time, at most
 * {@link #BATCH} writes and about {@link #BATCH_BYTES} in flight (read back), paced to {@link HintSettings#bytesPerSecond}, only while the
 * failure detector believes the peer up; a batch the peer answers busy (503) backs off, doubling
 * up to {@link #MAX_BACKOFF}. A hint the peer refuses otherwise {@link #MAX_REFUSALS} times, over
 * at least {@link #REFUSAL_WINDOW}, while still believed up is dropped ({@code refused}). Nothing
 * thrown stops the periodic check.
 */
final class HintedHandoff implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HintedHandoff.class);

    static final Duration CHECK_INTERVAL = Duration.ofMillis(200);
    static final int BATCH = 64;
    static final long BATCH_BYTES = 4L << 20;
    static final int MAX_REFUSALS = 10;
    static final Duration REFUSAL_WINDOW = Duration.ofSeconds(30);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

    private final Map<String, Replica> peers;
    private final Predicate<String> isUp;
    private final long maxBytes;
    private final long refusalWindowNanos;
    private final HintSettings settings;
    private final long graceMillis;
    private final HintFiles files;
    private final LongSupplier nowMillis;
    /** Runs the periodic check and starts each next batch, so delivery never recurses. */
    private final ScheduledExecutorService loop;
    private final ScheduledFuture<?> checker;

    // guarded by this (and each Hint)
    private final Map<String, PeerHints> state = new LinkedHashMap<>();
    private long bytes;
    private boolean overflowing;
    private long held;
    private long delivered;
    private long dropped;
    private long superseded;
    private volatile BiPredicate<String, Entry> owns; // whether a peer still owns a hint's key; null: all go

    /** In memory only, and no hint too old (ages are taken at the epoch): for tests. */
    HintedHandoff(Map<String, Replica> peers, Predicate<String> isUp, ScheduledExecutorService loop, long maxBytes) {
        this(peers, isUp, loop, maxBytes, REFUSAL_WINDOW, HintSettings.DEFAULTS, Duration.ofDays(1), null, () -> 0L);
    }

    /**
     * @param peers     the remote replicas hints are for, by URL; read each time, not copied, so that
     *                  a node that joins later gets hints too (the caller adds it; must be thread-safe),
     *                  and the hints of one the caller takes out (it left the cluster) are dropped
     * @param isUp      the failure detector's belief about a peer
     * @param loop      where the periodic check and the deliveries run
     * @param maxBytes  the most heap hints take at once: their index (keys and {@link Hint#OVERHEAD}),
     *                  and with no files their values
     * @param files     where hints are kept across restarts (null: in memory only); read here, and
     *                  closed by {@link #close()}
     * @param nowMillis the wall clock hints' ages are measured by
     */
    HintedHandoff(Map<String, Replica> peers, Predicate<String> isUp, ScheduledExecutorService loop, long maxBytes,
                  Duration refusalWindow, HintSettings settings, Duration tombstoneGrace, HintFiles files,
                  LongSupplier nowMillis) {
        this.refusalWindowNanos = refusalWindow.toNanos();
        this.peers = peers;
        this.isUp = isUp;
        this.maxBytes = maxBytes;
        this.settings = settings;
        this.graceMillis = tombstoneGrace.toMillis();
        this.files = files;
        this.nowMillis = nowMillis;
        this.loop = loop;
        if (files != null) replay();
        long every = CHECK_INTERVAL.toMillis();
        this.checker = loop.scheduleWithFixedDelay(this::deliverToPeersUp, every, every, TimeUnit.MILLISECONDS);
    }

    /** From now on a hint goes only where {@code owns} says its key still is; others: {@link HintDrop#NOT_OWNED}. */
    void deliverOnlyWhere(BiPredicate<String, Entry> owns) {
        this.owns = owns;
    }

    /**
     * Takes back the hints of the files left by the last run, those of nodes no longer peers
     * dropped as removed; files left with none are deleted.
     */
    private void replay() {
        Map<String, List<Long>> found;
        try {
            synchronized (this) {
                files.dropOthers(peers.keySet()).forEach((url, n) -> { dropped += n; peer(url).drop(HintDrop.REMOVED, n); });
                found = files.replay(peers.keySet(), (peer, file, offset, e) -> {
                    PeerHints p = peer(peer);
                    p.file = file;
                    keep(peer, p, e, offset);
                });
                files.damagedBytes().forEach((url, bytes) -> peer(url).damagedBytes += bytes);
            }
        } catch (IOException e) {
            log.warn("hint files of {} could not all be read: {}", peers.keySet(), e.toString());
            return;
        }
        synchronized (this) {
            long count = 0;
            for (Map.Entry<String, List<Long>> l : found.entrySet()) {
                PeerHints p = peer(l.getKey());
                count += p.queue.size();
                for (long f : l.getValue()) {
                    if (!p.holds(f)) files.delete(l.getKey(), f); // all of it superseded or dropped
                }
                p.file = l.getValue().getLast() + 1; // never append to a file a crash may have torn
            }
            if (count > 0) log.info("{} hinted write(s) read back from disk for {} peer(s)", count, found.size());
        }
    }

    private PeerHints peer(String url) { return state.computeIfAbsent(url, u -> new PeerHints()); }

    /** Keeps {@code entry} for {@code peer}, whose write of it failed; false if not a peer or no room. */
    boolean hold(String peer, Entry entry) {
        if (!peers.containsKey(peer)) return false;
        boolean kept, firstOverflow;
        synchronized (this) {
            kept = keep(peer, peer(peer), entry, -1);
            firstOverflow = !kept && !overflowing;
            if (firstOverflow) overflowing = true;
        }
        if (firstOverflow) log.warn("hints for down peers exceed {} bytes in memory or {} bytes on disk for one peer: dropping new ones "
                    + "(first for {}); read repair remains", maxBytes, settings.bytesPerPeer(), peer);
        return kept;
    }

    /**
     * Holds {@code entry} for {@code url}: read back at {@code offset} of the peer's current file, or
     * (offset -1) new, and written to its file; false if there was no room.
     */
    private boolean keep(String url, PeerHints p, Entry entry, long offset) {
        boolean replayed = offset >= 0;
        long file = replayed ? p.file : p.fileForNew();
        Hint h = replayed ? Hint.onDisk(entry, file, offset) : Hint.held(entry, file, files == null);
        Hint old = p.queue.get(ByteBuffer.wrap(h.key));
        boolean replaces = old == null || h.supersedes(old);
        long disk = h.diskBytes;
        if (replaces && (bytes + h.memoryBytes - (old == null ? 0 : old.memoryBytes) > maxBytes
                || files != null && !replayed && p.diskBytes + disk > settings.bytesPerPeer())) {
            drop(p, HintDrop.FULL);
            return false;
        }
        p.account(h);
        if (files != null && !replayed) files.append(url, p.file, h.entry, at -> written(h, at));
        bytes += h.memoryBytes;
        held++;
        offer(url, p, h); // superseded at once if the one held is as new or newer
        return true;
    }

    /** The file of {@code h} holds it from {@code at} (or could not take it, -1): its entry is let go. */
    private synchronized void written(Hint h, long at) {
        if (at >= 0) h.written(at);
        else if (!h.gone) bytes += h.notWritten();
    }

    private void drop(PeerHints p, HintDrop why) { dropped++; p.drop(why); }

    /** A hint is gone (delivered, dropped or superseded): its bytes uncounted, its file deleted once it holds none. */
    private void forget(String url, PeerHints p, Hint h) {
        bytes -= h.memoryBytes;
        h.gone = true;
        if (p.unaccount(h) && files != null) files.delete(url, h.file);
    }

    /** Why {@code h} must not be delivered any more, or null. */
    private HintDrop tooOld(Hint h) {
        long age = nowMillis.getAsLong() - HybridLogicalClock.toEpochMillis(h.timestamp);
        return age > graceMillis ? HintDrop.GRACE : age > settings.window().toMillis() ? HintDrop.EXPIRED : null;
    }

    private void deliverToPeersUp() {
        try {
            checkPeers();
        } catch (RuntimeException | OutOfMemoryError e) { // thrown out of a scheduled task, it would end the schedule
            log.warn("hinted handoff check failed, next in {} ms: {}", CHECK_INTERVAL.toMillis(), e.toString());
        }
    }

    private void checkPeers() {
        List<String> due = new ArrayList<>();
        List<String> starting = new ArrayList<>();
        synchronized (this) {
            long now = System.nanoTime();
            for (Map.Entry<String, PeerHints> ps : state.entrySet()) {
                String peer = ps.getKey();
                PeerHints p = ps.getValue();
                if (!peers.containsKey(peer)) { // it left the cluster: its hints can never be delivered
                    if (!p.delivering) dropWhile(peer, p, h -> HintDrop.REMOVED);
                    continue;
                }
                dropWhile(peer, p, this::tooOld);
                if (!p.queue.isEmpty() && !p.delivering && now - p.backoffUntilNanos >= 0 && isUp.test(peer)) {
                    p.delivering = true;
                    if (p.runStartNanos < 0) {
                        p.runStartNanos = now;
                        p.deliveredThisRun = 0;
                        starting.add("peer " + peer + " is up: delivering " + p.queue.size() + " hinted write(s)");
                    }
                    due.add(peer);
                }
            }
        }
        for (String line : starting) log.info(line);
        for (String peer : due) deliverBatch(peer);
    }

    /** Drops the hints at the head of the queue for which {@code reason} names a reason. Called holding this. */
    private void dropWhile(String url, PeerHints p, java.util.function.Function<Hint, HintDrop> reason) {
        Iterator<Hint> oldest = p.queue.values().iterator();
        while (oldest.hasNext()) {
            Hint h = oldest.next();
            HintDrop why = reason.apply(h);
            if (why == null) return;
            oldest.remove();
            drop(p, why);
            forget(url, p, h);
        }
    }

    /**
     * Takes the next batch of {@code peer}'s hints and has their entries read back from their files
     * (those still in memory as they are), then sends them; called with the peer marked delivering.
     */
    private void deliverBatch(String peer) {
        List<Hint> batch = new ArrayList<>(BATCH);
        long started = System.nanoTime();
        long batchBytes = 0;
        try {
            HintBatch taken;
            synchronized (this) {
                PeerHints p = state.get(peer);
                Iterator<Hint> oldest = p.queue.values().iterator();
                while (batch.size() < BATCH && batchBytes < BATCH_BYTES && oldest.hasNext()) {
                    Hint h = oldest.next();
                    oldest.remove();
                    HintDrop why = tooOld(h);
                    if (why != null) {
                        drop(p, why);
                        forget(peer, p, h);
                        continue;
                    }
                    batch.add(h);
                    batchBytes += h.diskBytes;
                }
                p.inFlight = batch.size();
                taken = new HintBatch(peer, batch, files);
            }
            if (files == null || taken.inMemory()) {
                send(peer, batch, taken.values, started);
                return;
            }
            taken.read().whenComplete((values, failure) -> {
                try {
                    if (failure != null) throw failure;
                    loop.execute(() -> send(peer, batch, values, started));
                } catch (Throwable t) { // stopping: the files keep them
                    giveBack(peer, batch, t);
                }
            });
        } catch (RuntimeException | OutOfMemoryError e) {
            giveBack(peer, batch, e);
        }
    }

    /** Sends {@code batch}, whose entries are {@code values} (null, or another write: lost from its file). */
    private void send(String peer, List<Hint> batch, Entry[] values, long started) {
        List<Hint> sent = new ArrayList<>(batch.size());
        List<Entry> entries = new ArrayList<>(batch.size());
        long batchBytes = 0;
        int lost = 0;
        BiPredicate<String, Entry> owned = owns;
        synchronized (this) {
            PeerHints p = state.get(peer);
            for (int i = 0; i < batch.size(); i++) {
                Hint h = batch.get(i);
                HintDrop why = !h.is(values[i]) ? HintDrop.LOST
                        : owned != null && !owned.test(peer, values[i]) ? HintDrop.NOT_OWNED : null;
                if (why != null) {
                    drop(p, why);
                    forget(peer, p, h);
                    if (why == HintDrop.LOST) lost++;
                    continue;
                }
                sent.add(h);
                entries.add(values[i]);
                batchBytes += h.diskBytes;
            }
            p.inFlight = sent.size();
        }
        if (lost > 0) log.warn("peer {}: {} hinted write(s) could not be read back from their files: dropped", peer, lost);
        try {
            Replica replica = peers.get(peer);
            if (replica == null) throw new IllegalStateException(peer + " is no longer in the cluster");
            List<CompletableFuture<Void>> writes = new ArrayList<>(sent.size());
            for (Entry e : entries) {
                CompletableFuture<Void> w;
                try {
                    w = replica.write(e);
                } catch (RuntimeException ex) {
                    w = CompletableFuture.failedFuture(ex);
                }
                writes.add(w);
            }
            // paced: the next batch starts no sooner than these bytes take at the set rate
            long paceNanos = (long) (batchBytes * 1e9 / settings.bytesPerSecond());
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
                    .whenComplete((ignored, failure) -> afterBatchOrRelease(peer, sent, writes, started + paceNanos));
        } catch (RuntimeException | OutOfMemoryError e) {
            giveBack(peer, sent, e);
        }
    }

    private void afterBatchOrRelease(String peer, List<Hint> batch, List<CompletableFuture<Void>> writes, long nextAt) {
        try {
            afterBatch(peer, batch, writes, nextAt);
        } catch (RuntimeException | OutOfMemoryError e) { // inside whenComplete it would vanish
            synchronized (this) {
                PeerHints p = state.get(peer);
                p.delivering = false; // or the peer would never be delivered to again
                p.inFlight = 0;
            }
            log.warn("hinted handoff to {}: a batch's outcome could not be recorded: {}", peer, e.toString());
        }
    }

    /**
     * Puts a hint in its peer's queue (a new one, or one taken out for delivery), unless the hint
     * held for the same key is as new or newer; the older of the two is superseded and forgotten.
     * The offered hint must already be counted. Called holding this.
     */
    private void offer(String url, PeerHints p, Hint h) {
        Hint gone = p.offer(h);
        if (gone == null) return;
        forget(url, p, gone);
        superseded++;
    }

    /** A batch that could not be sent: its hints go back (unless newer ones came), the peer is free. */
    private void giveBack(String peer, List<Hint> batch, Throwable cause) {
        synchronized (this) {
            PeerHints p = state.get(peer);
            for (Hint h : batch) offer(peer, p, h);
            p.inFlight = 0;
            p.delivering = false;
        }
        log.warn("hinted handoff to {} failed, {} hint(s) kept for the next check: {}", peer, batch.size(), cause.toString());
    }

    private void afterBatch(String peer, List<Hint> batch, List<CompletableFuture<Void>> writes, long nextAt) {
        boolean more;
        int failures = 0;
        boolean busy = false;
        // failed while the detector still believes it up: refused by a live peer, not a peer gone again
        boolean refused = isUp.test(peer);
        List<Throwable> givenUp = new ArrayList<>();
        String runEnded = null;
        synchronized (this) {
            PeerHints p = state.get(peer);
            p.inFlight = 0;
            for (int i = 0; i < batch.size(); i++) {
                Hint h = batch.get(i);
                CompletableFuture<Void> w = writes.get(i);
                if (!w.isCompletedExceptionally()) {
                    forget(peer, p, h);
                    delivered++;
                    p.delivered++;
                    p.deliveredThisRun++;
                    continue;
                }
                failures++;
                Throwable t = Completions.cause(w.exceptionNow());
                if (t instanceof ReplicaBusyException) { // the peer asks for time, not a refusal of this write
                    busy = true;
                    h.notRefused();
                    offer(peer, p, h);
                } else if (refused && h.refusals + 1 >= MAX_REFUSALS
                        && System.nanoTime() - h.firstRefusalNanos >= refusalWindowNanos) {
                    failures--;
                    forget(peer, p, h);
                    drop(p, HintDrop.REFUSED);
                    givenUp.add(t);
                } else {
                    if (refused) h.refusedOnceMore();
                    else h.notRefused();
                    offer(peer, p, h);
                }
            }
            if (busy) {
                p.backOff(MAX_BACKOFF.toMillis());
            } else if (failures == 0) {
                p.backoffMillis = 0;
            }
            if (bytes < maxBytes / 2) overflowing = false;
            boolean up = isUp.test(peer);
            more = failures == 0 && !p.queue.isEmpty() && up;
            if (!more) p.delivering = false;
            runEnded = p.endRun(peer, up);
        }
        if (runEnded != null) log.info(runEnded);
        if (busy) log.info("peer {} is busy (503): hinted handoff to it backs off", peer);
        for (Throwable t : givenUp) {
            log.warn("peer {} refused a hinted write {} times over {} s, dropped it: {}", peer, MAX_REFUSALS,
                    refusalWindowNanos / 1_000_000_000L, t.toString());
        }
        // failures: the peer went away again or refused; the periodic check tries again
        if (more) {
            try {
                loop.schedule(() -> deliverBatch(peer), Math.max(0, nextAt - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) { // stopping: close() reports what is left
                synchronized (this) {
                    state.get(peer).delivering = false;
                }
            }
        }
    }

    /** The hints held for {@code peer} now (none in flight), oldest first, in batches of at most {@link #BATCH}; they stay held. */
    synchronized List<HintBatch> held(String peer) {
        List<Hint> all = state.containsKey(peer) ? new ArrayList<>(state.get(peer).queue.values()) : List.of();
        List<HintBatch> out = new ArrayList<>();
        for (int i = 0; i < all.size(); i += BATCH) out.add(new HintBatch(peer, all.subList(i, Math.min(all.size(), i + BATCH)), files));
        return out;
    }

    /** Hints kept since start (read back included), delivered, dropped ({@link HintDrop}), superseded, and waiting now. */
    record Counts(long held, long delivered, long dropped, long superseded, long waiting) {}

    synchronized Counts counts() {
        long waiting = 0;
        for (PeerHints p : state.values()) waiting += p.queue.size() + p.inFlight; // in flight: not delivered yet
        return new Counts(held, delivered, dropped, superseded, waiting);
    }

    /**
     * Per peer with hints since start: {@code pending} (waiting or being sent), {@code pendingBytes}, {@code oldestAgeMillis}
     * (0 with none), {@code delivered}, {@code superseded}, and {@code dropped<Reason>} for each {@link HintDrop}.
     */
    synchronized Map<String, Map<String, Long>> peerCounts() {
        Map<String, Map<String, Long>> m = new LinkedHashMap<>();
        long now = nowMillis.getAsLong();
        for (Map.Entry<String, PeerHints> ps : state.entrySet()) m.put(ps.getKey(), ps.getValue().status(now));
        return m;
    }

    @Override
    public void close() {
        checker.cancel(false);
        long waiting = counts().waiting();
        if (files != null) {
            files.close();
            if (waiting > 0) log.info("stopping with {} undelivered hinted write(s), kept on disk for the next start", waiting);
        } else if (waiting > 0) {
            log.warn("stopping with {} undelivered hinted write(s): their replicas catch up when the keys are read, or all at once with bin/dht repair", waiting);
        }
    }
}
