package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.RecordLog;
import java.io.IOException;
import java.util.EnumMap;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
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
 * at most one hint per key in memory, the newest version (an older one is superseded, counted).
 * With {@link HintFiles} every hint held is also appended to the peer's current hint file, and
 * read back when the node starts; each file counts the hints of it still held, and is deleted when
 * that reaches zero (delivered, dropped or superseded), so the files hold at least every hint held.
 * Bounds: {@code maxBytes} in memory over all peers and {@link HintSettings#bytesPerPeer} on disk
 * per peer (new hints past them dropped as {@code full}); a hint older than the window
 * ({@code expired}) or than the tombstone grace ({@code grace}: it could resurrect a deleted
 * value) is dropped instead of delivered. Delivery to a peer runs one batch at a time, at most
 * {@link #BATCH} writes in flight, paced to {@link HintSettings#bytesPerSecond}, only while the
 * failure detector believes the peer up; a batch the peer answers busy (503) backs off, doubling
 * up to {@link #MAX_BACKOFF}. A hint the peer refuses otherwise {@link #MAX_REFUSALS} times, over
 * at least {@link #REFUSAL_WINDOW}, while still believed up is dropped ({@code refused}). Nothing
 * thrown stops the periodic check.
 */
final class HintedHandoff implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HintedHandoff.class);

    static final Duration CHECK_INTERVAL = Duration.ofMillis(200);
    static final int BATCH = 64;
    static final int MAX_REFUSALS = 10;
    static final Duration REFUSAL_WINDOW = Duration.ofSeconds(30);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
    /** A peer's hint file is closed and a new one begun past this size. */
    static final long FILE_BYTES = 4L << 20;
    /** Per hint beyond key and value bytes: the entry, its arrays and the queue slot. */
    static final int OVERHEAD = 96;

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

    // guarded by this
    private final Map<String, Peer> state = new LinkedHashMap<>();
    private long bytes;
    private boolean overflowing;
    private long held;
    private long delivered;
    private long dropped;
    private long superseded;

    /** One peer's hints and counters. */
    private static final class Peer {
        /** Its hints by key, oldest first. */
        final LinkedHashMap<ByteBuffer, Hint> queue = new LinkedHashMap<>();
        /** Per hint file: {hints of it still held, its bytes}. */
        final TreeMap<Long, long[]> files = new TreeMap<>();
        long file;
        long diskBytes;
        boolean delivering;
        /** Hints taken out of {@link #queue} for the batch being delivered. */
        int inFlight;
        long runStartNanos = -1;
        long deliveredThisRun;
        long delivered;
        long superseded;
        final EnumMap<HintDrop, Long> dropped = new EnumMap<>(HintDrop.class);
        long backoffMillis;
        long backoffUntilNanos;
    }

    /** In memory only: for tests. */
    HintedHandoff(Map<String, Replica> peers, Predicate<String> isUp, ScheduledExecutorService loop, long maxBytes) {
        this(peers, isUp, loop, maxBytes, REFUSAL_WINDOW);
    }

    /**
     * In memory only, and no hint too old (ages are taken at the epoch): for tests.
     *
     * @param refusalWindow the least time between a hint's first refusal and its drop
     */
    HintedHandoff(Map<String, Replica> peers, Predicate<String> isUp, ScheduledExecutorService loop, long maxBytes,
                  Duration refusalWindow) {
        this(peers, isUp, loop, maxBytes, refusalWindow, HintSettings.DEFAULTS, Duration.ofDays(1), null, () -> 0L);
    }

    /**
     * @param peers     the remote replicas hints are for, by URL
     * @param isUp      the failure detector's belief about a peer
     * @param loop      where the periodic check and the deliveries run
     * @param maxBytes  the most hint bytes (keys, values and overhead) kept in memory at once
     * @param files     where hints are kept across restarts (null: in memory only); read here, and
     *                  closed by {@link #close()}
     * @param nowMillis the wall clock hints' ages are measured by
     */
    HintedHandoff(Map<String, Replica> peers, Predicate<String> isUp, ScheduledExecutorService loop, long maxBytes,
                  Duration refusalWindow, HintSettings settings, Duration tombstoneGrace, HintFiles files,
                  LongSupplier nowMillis) {
        this.refusalWindowNanos = refusalWindow.toNanos();
        this.peers = Map.copyOf(peers);
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

    /** Takes back the hints of the files left by the last run; files left with none are deleted. */
    private void replay() {
        Map<String, List<Long>> found;
        try {
            synchronized (this) {
                found = files.replay(peers.keySet(), (peer, file, e) -> {
                    Peer p = peer(peer);
                    p.file = file;
                    keep(peer, p, e, true);
                });
            }
        } catch (IOException e) {
            log.warn("hint files of {} could not all be read: {}", peers.keySet(), e.toString());
            return;
        }
        synchronized (this) {
            long count = 0;
            for (Map.Entry<String, List<Long>> l : found.entrySet()) {
                Peer p = peer(l.getKey());
                count += p.queue.size();
                for (long f : l.getValue()) {
                    if (!p.files.containsKey(f)) files.delete(l.getKey(), f); // all of it superseded or dropped
                }
                p.file = l.getValue().getLast() + 1; // never append to a file a crash may have torn
            }
            if (count > 0) log.info("{} hinted write(s) read back from disk for {} peer(s)", count, found.size());
        }
    }

    private Peer peer(String url) { return state.computeIfAbsent(url, u -> new Peer()); }

    /** Keeps {@code entry} for {@code peer}, whose write of it failed; no-op for a URL that is not a peer. */
    void hold(String peer, Entry entry) {
        if (!peers.containsKey(peer)) return;
        boolean firstOverflow;
        synchronized (this) {
            firstOverflow = !keep(peer, peer(peer), entry, false) && !overflowing;
            if (firstOverflow) overflowing = true;
        }
        if (firstOverflow) log.warn("hints for down peers exceed {} bytes in memory or {} bytes on disk for one peer: dropping new ones "
                    + "(first for {}); read repair remains", maxBytes, settings.bytesPerPeer(), peer);
    }

    /** Holds {@code entry} for {@code url} (written to its file unless {@code replayed}); false if there was no room. */
    private boolean keep(String url, Peer p, Entry entry, boolean replayed) {
        Hint old = p.queue.get(ByteBuffer.wrap(entry.key()));
        boolean replaces = old == null || entry.supersedes(old.entry());
        long disk = RecordLog.size(entry);
        if (replaces && (bytes + sizeOf(entry) - (old == null ? 0 : sizeOf(old.entry())) > maxBytes
                || files != null && !replayed && p.diskBytes + disk > settings.bytesPerPeer())) {
            drop(p, HintDrop.FULL);
            return false;
        }
        long[] f = p.files.get(p.file);
        if (!replayed && f != null && f[1] >= FILE_BYTES) {
            p.file++;
            f = null;
        }
        if (f == null) p.files.put(p.file, f = new long[2]);
        f[0]++;
        f[1] += disk;
        p.diskBytes += disk;
        if (files != null && !replayed) files.append(url, p.file, entry);
        bytes += sizeOf(entry);
        held++;
        offer(url, p, new Hint(entry, p.file, 0, 0)); // superseded at once if the one held is as new or newer
        return true;
    }

    private void drop(Peer p, HintDrop why) { dropped++; p.dropped.merge(why, 1L, Long::sum); }

    /** A hint is gone (delivered, dropped or superseded): its bytes uncounted, its file deleted once it holds none. */
    private void forget(String url, Peer p, Hint h) {
        bytes -= sizeOf(h.entry());
        long[] f = p.files.get(h.file());
        if (f == null || --f[0] > 0) return;
        p.files.remove(h.file());
        p.diskBytes -= f[1];
        if (h.file() == p.file) p.file++;
        if (files != null) files.delete(url, h.file());
    }

    /** Why {@code e} must not be delivered any more, or null. */
    private HintDrop tooOld(Entry e) {
        long age = nowMillis.getAsLong() - HybridLogicalClock.toEpochMillis(e.timestamp());
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
            for (Map.Entry<String, Peer> ps : state.entrySet()) {
                String peer = ps.getKey();
                Peer p = ps.getValue();
                dropTooOld(peer, p);
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

    /** Drops the hints at the head of the queue that are too old to deliver. Called holding this. */
    private void dropTooOld(String url, Peer p) {
        Iterator<Hint> oldest = p.queue.values().iterator();
        while (oldest.hasNext()) {
            Hint h = oldest.next();
            HintDrop why = tooOld(h.entry());
            if (why == null) return;
            oldest.remove();
            drop(p, why);
            forget(url, p, h);
        }
    }

    /** Sends the next batch of {@code peer}'s hints; called with the peer marked delivering. */
    private void deliverBatch(String peer) {
        List<Hint> batch = new ArrayList<>(BATCH);
        long batchBytes = 0;
        long started = System.nanoTime();
        try {
            synchronized (this) {
                Peer p = state.get(peer);
                Iterator<Hint> oldest = p.queue.values().iterator();
                while (batch.size() < BATCH && oldest.hasNext()) {
                    Hint h = oldest.next();
                    oldest.remove();
                    HintDrop why = tooOld(h.entry());
                    if (why != null) {
                        drop(p, why);
                        forget(peer, p, h);
                        continue;
                    }
                    batch.add(h);
                    batchBytes += RecordLog.size(h.entry());
                }
                p.inFlight = batch.size();
            }
            Replica replica = peers.get(peer);
            List<CompletableFuture<Void>> writes = new ArrayList<>(batch.size());
            for (Hint h : batch) {
                CompletableFuture<Void> w;
                try {
                    w = replica.write(h.entry());
                } catch (RuntimeException e) {
                    w = CompletableFuture.failedFuture(e);
                }
                writes.add(w);
            }
            // paced: the next batch starts no sooner than these bytes take at the set rate
            long paceNanos = (long) (batchBytes * 1e9 / settings.bytesPerSecond());
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
                    .whenComplete((ignored, failure) -> afterBatchOrRelease(peer, batch, writes,
                            started + paceNanos));
        } catch (RuntimeException | OutOfMemoryError e) {
            giveBack(peer, batch, e);
        }
    }

    private void afterBatchOrRelease(String peer, List<Hint> batch, List<CompletableFuture<Void>> writes, long nextAt) {
        try {
            afterBatch(peer, batch, writes, nextAt);
        } catch (RuntimeException | OutOfMemoryError e) { // inside whenComplete it would vanish
            synchronized (this) {
                Peer p = state.get(peer);
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
    private void offer(String url, Peer p, Hint h) {
        ByteBuffer key = ByteBuffer.wrap(h.entry().key());
        Hint old = p.queue.get(key);
        if (old == null) {
            p.queue.put(key, h);
            return;
        }
        boolean newer = h.entry().supersedes(old.entry());
        forget(url, p, newer ? old : h);
        superseded++;
        p.superseded++;
        if (newer) p.queue.put(key, h);
    }

    /** A batch that could not be sent: its hints go back (unless newer ones came), the peer is free. */
    private void giveBack(String peer, List<Hint> batch, Throwable cause) {
        synchronized (this) {
            Peer p = state.get(peer);
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
            Peer p = state.get(peer);
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
                Throwable t = w.exceptionNow();
                if (t instanceof CompletionException && t.getCause() != null) t = t.getCause();
                if (t instanceof ReplicaBusyException) { // the peer asks for time, not a refusal of this write
                    busy = true;
                    offer(peer, p, h.notRefused());
                } else if (refused && h.refusals() + 1 >= MAX_REFUSALS
                        && System.nanoTime() - h.firstRefusalNanos() >= refusalWindowNanos) {
                    failures--;
                    forget(peer, p, h);
                    drop(p, HintDrop.REFUSED);
                    givenUp.add(t);
                } else {
                    offer(peer, p, refused ? h.refusedOnceMore() : h.notRefused());
                }
            }
            if (busy) {
                p.backoffMillis = Math.min(MAX_BACKOFF.toMillis(), Math.max(250, 2 * p.backoffMillis));
                p.backoffUntilNanos = System.nanoTime() + p.backoffMillis * 1_000_000;
            } else if (failures == 0) {
                p.backoffMillis = 0;
            }
            if (bytes < maxBytes / 2) overflowing = false;
            boolean up = isUp.test(peer);
            more = failures == 0 && !p.queue.isEmpty() && up;
            if (!more) p.delivering = false;
            // a run ends when the queue is empty, or when the peer is gone again (the next run logs anew)
            if ((p.queue.isEmpty() || !up) && p.runStartNanos >= 0) {
                runEnded = String.format("peer %s: %d hinted write(s) delivered in %d ms%s", peer, p.deliveredThisRun,
                        (System.nanoTime() - p.runStartNanos) / 1_000_000,
                        p.queue.isEmpty() ? "" : ", " + p.queue.size() + " left: it is down again");
                p.runStartNanos = -1;
            }
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

    /** A write kept for a peer, the hint file it is in; how often the peer, believed up, refused it, and since when. */
    private record Hint(Entry entry, long file, int refusals, long firstRefusalNanos) {
        Hint refusedOnceMore() {
            return new Hint(entry, file, refusals + 1, refusals == 0 ? System.nanoTime() : firstRefusalNanos);
        }

        /** Failed while the peer was believed down: what counts is refusals in a row by a live peer. */
        Hint notRefused() {
            return refusals == 0 ? this : new Hint(entry, file, 0, 0);
        }
    }

    private static long sizeOf(Entry e) {
        return (long) e.key().length + (e.isTombstone() ? 0 : e.value().length) + OVERHEAD;
    }

    /**
     * Hints kept since start (read back from disk included), delivered since start, dropped (no
     * room, too old, or refused), superseded by a newer hint for the same key, and waiting now.
     */
    record Counts(long held, long delivered, long dropped, long superseded, long waiting) {}

    synchronized Counts counts() {
        long waiting = 0;
        for (Peer p : state.values()) waiting += p.queue.size();
        return new Counts(held, delivered, dropped, superseded, waiting);
    }

    /**
     * Per peer with hints since start: {@code pending} (waiting or being sent), {@code pendingBytes} (their
     * files' bytes), {@code oldestAgeMillis} (of the oldest waiting hint's write, 0 with none),
     * {@code delivered}, {@code superseded}, and {@code dropped<Reason>} for each {@link HintDrop}.
     */
    synchronized Map<String, Map<String, Long>> peerCounts() {
        Map<String, Map<String, Long>> m = new LinkedHashMap<>();
        long now = nowMillis.getAsLong();
        for (Map.Entry<String, Peer> ps : state.entrySet()) {
            Peer p = ps.getValue();
            Map<String, Long> c = new LinkedHashMap<>();
            c.put("pending", (long) p.queue.size() + p.inFlight);
            c.put("pendingBytes", p.diskBytes);
            // the queue is oldest first, near enough: a superseding hint keeps its key's place
            Hint first = p.queue.isEmpty() ? null : p.queue.firstEntry().getValue();
            c.put("oldestAgeMillis", first == null ? 0 : Math.max(0, now - HybridLogicalClock.toEpochMillis(first.entry().timestamp())));
            c.put("delivered", p.delivered);
            c.put("superseded", p.superseded);
            for (HintDrop r : HintDrop.values()) c.put("dropped" + Character.toUpperCase(r.label().charAt(0)) + r.label().substring(1), p.dropped.getOrDefault(r, 0L));
            m.put(ps.getKey(), c);
        }
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
