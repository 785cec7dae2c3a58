package dht.node.cluster;

import dht.storage.Entry;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * at most one hint per key, the newest version (an older one is superseded, counted): a key
 * written often while its replica is down costs one hint, not one per write, and a delete of a key
 * whose older hint is waiting never finds the budget full (a tombstone is never larger than the
 * value it replaces; one whose older hint is in flight, or a first hint, can). Hints live in memory only, within
 * {@code maxBytes} over all peers; past that, or when this node stops, they are dropped (counted,
 * and logged once per overflow) and read repair is what remains. Delivery to a peer runs one batch
 * at a time, at most {@link #BATCH} writes in flight, only while the failure detector believes the
 * peer up; a write that fails again is kept for the next check. A hint the peer refuses
 * {@link #MAX_REFUSALS} times, over at least {@link #REFUSAL_WINDOW}, while still believed up is
 * dropped (logged), so that one write a peer will never take cannot hold back the others, while a
 * peer that is only busy (503 while it catches up, a timeout before the detector marks it down) for
 * less than the window keeps its hints. Nothing thrown stops the periodic check.
 */
final class HintedHandoff implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HintedHandoff.class);

    static final Duration CHECK_INTERVAL = Duration.ofMillis(200);
    static final int BATCH = 64;
    static final int MAX_REFUSALS = 10;
    static final Duration REFUSAL_WINDOW = Duration.ofSeconds(30);
    /** Per hint beyond key and value bytes: the entry, its arrays and the queue slot. */
    static final int OVERHEAD = 96;

    private final Map<String, Replica> peers;
    private final Predicate<String> isUp;
    private final long maxBytes;
    private final long refusalWindowNanos;
    /** Runs the periodic check and starts each next batch, so delivery never recurses. */
    private final ScheduledExecutorService loop;
    private final ScheduledFuture<?> checker;

    // guarded by this
    /** Per peer, its hints by key, oldest first. */
    private final Map<String, LinkedHashMap<ByteBuffer, Hint>> queues = new LinkedHashMap<>();
    private final Set<String> delivering = new HashSet<>();
    private final Map<String, Long> deliveryStartNanos = new LinkedHashMap<>();
    private final Map<String, Long> deliveredThisRun = new LinkedHashMap<>();
    private long bytes;
    private boolean overflowing;
    private long held;
    private long delivered;
    private long dropped;
    private long superseded;

    /**
     * @param peers    the remote replicas hints are for, by URL
     * @param isUp     the failure detector's belief about a peer
     * @param loop     where the periodic check and the deliveries run
     * @param maxBytes the most hint bytes (keys, values and overhead) kept at once
     */
    HintedHandoff(Map<String, Replica> peers, Predicate<String> isUp, ScheduledExecutorService loop, long maxBytes) {
        this(peers, isUp, loop, maxBytes, REFUSAL_WINDOW);
    }

    /** @param refusalWindow the least time between a hint's first refusal and its drop */
    HintedHandoff(Map<String, Replica> peers, Predicate<String> isUp, ScheduledExecutorService loop, long maxBytes,
                  Duration refusalWindow) {
        this.refusalWindowNanos = refusalWindow.toNanos();
        this.peers = Map.copyOf(peers);
        this.isUp = isUp;
        this.maxBytes = maxBytes;
        this.loop = loop;
        long every = CHECK_INTERVAL.toMillis();
        this.checker = loop.scheduleWithFixedDelay(this::deliverToPeersUp, every, every, TimeUnit.MILLISECONDS);
    }

    /** Keeps {@code entry} for {@code peer}, whose write of it failed; no-op for a URL that is not a peer. */
    void hold(String peer, Entry entry) {
        if (!peers.containsKey(peer)) return;
        boolean firstOverflow = false;
        synchronized (this) {
            LinkedHashMap<ByteBuffer, Hint> q = queues.computeIfAbsent(peer, p -> new LinkedHashMap<>());
            Hint old = q.get(ByteBuffer.wrap(entry.key()));
            boolean replaces = old == null || entry.supersedes(old.entry());
            if (replaces && bytes + sizeOf(entry) - (old == null ? 0 : sizeOf(old.entry())) > maxBytes) {
                dropped++;
                firstOverflow = !overflowing;
                overflowing = true;
            } else {
                bytes += sizeOf(entry);
                held++;
                offer(q, new Hint(entry, 0, 0)); // superseded at once if the one held is as new or newer
            }
        }
        if (firstOverflow) {
            log.warn("hints for down peers exceed {} bytes: dropping new ones (first for {}); read repair remains",
                    maxBytes, peer);
        }
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
            for (Map.Entry<String, LinkedHashMap<ByteBuffer, Hint>> q : queues.entrySet()) {
                String peer = q.getKey();
                if (!q.getValue().isEmpty() && !delivering.contains(peer) && isUp.test(peer)) {
                    delivering.add(peer);
                    if (!deliveryStartNanos.containsKey(peer)) {
                        deliveryStartNanos.put(peer, System.nanoTime());
                        deliveredThisRun.put(peer, 0L);
                        starting.add("peer " + peer + " is up: delivering " + q.getValue().size() + " hinted write(s)");
                    }
                    due.add(peer);
                }
            }
        }
        for (String line : starting) log.info(line);
        for (String peer : due) deliverBatch(peer);
    }

    /** Sends the next batch of {@code peer}'s hints; called with the peer marked delivering. */
    private void deliverBatch(String peer) {
        List<Hint> batch = new ArrayList<>(BATCH);
        try {
            synchronized (this) {
                Iterator<Hint> oldest = queues.get(peer).values().iterator();
                while (batch.size() < BATCH && oldest.hasNext()) {
                    batch.add(oldest.next());
                    oldest.remove();
                }
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
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
                    .whenComplete((ignored, failure) -> afterBatchOrRelease(peer, batch, writes));
        } catch (RuntimeException | OutOfMemoryError e) {
            giveBack(peer, batch, e);
        }
    }

    private void afterBatchOrRelease(String peer, List<Hint> batch, List<CompletableFuture<Void>> writes) {
        try {
            afterBatch(peer, batch, writes);
        } catch (RuntimeException | OutOfMemoryError e) { // inside whenComplete it would vanish
            synchronized (this) {
                delivering.remove(peer); // or the peer would never be delivered to again
            }
            log.warn("hinted handoff to {}: a batch's outcome could not be recorded: {}", peer, e.toString());
        }
    }

    /**
     * Puts a hint in its peer's queue (a new one, or one taken out for delivery), unless the hint
     * held for the same key is as new or newer; the older of the two is superseded and its bytes
     * uncounted. The offered hint's bytes must already be counted. Called holding this.
     */
    private void offer(LinkedHashMap<ByteBuffer, Hint> q, Hint h) {
        ByteBuffer key = ByteBuffer.wrap(h.entry().key());
        Hint held = q.get(key);
        if (held != null && !h.entry().supersedes(held.entry())) {
            bytes -= sizeOf(h.entry());
            superseded++;
            return;
        }
        if (held != null) {
            bytes -= sizeOf(held.entry());
            superseded++;
        }
        q.put(key, h);
    }

    /** A batch that could not be sent: its hints go back (unless newer ones came), the peer is free. */
    private void giveBack(String peer, List<Hint> batch, Throwable cause) {
        synchronized (this) {
            LinkedHashMap<ByteBuffer, Hint> q = queues.get(peer);
            for (Hint h : batch) offer(q, h);
            delivering.remove(peer);
        }
        log.warn("hinted handoff to {} failed, {} hint(s) kept for the next check: {}", peer, batch.size(), cause.toString());
    }

    private void afterBatch(String peer, List<Hint> batch, List<CompletableFuture<Void>> writes) {
        boolean more;
        int failures = 0;
        // failed while the detector still believes it up: refused by a live peer, not a peer gone again
        boolean refused = isUp.test(peer);
        List<Throwable> givenUp = new ArrayList<>();
        String runEnded = null;
        synchronized (this) {
            LinkedHashMap<ByteBuffer, Hint> q = queues.get(peer);
            for (int i = 0; i < batch.size(); i++) {
                Hint h = batch.get(i);
                CompletableFuture<Void> w = writes.get(i);
                if (!w.isCompletedExceptionally()) {
                    bytes -= sizeOf(h.entry());
                    delivered++;
                    deliveredThisRun.merge(peer, 1L, Long::sum);
                } else if (refused && h.refusals() + 1 >= MAX_REFUSALS
                        && System.nanoTime() - h.firstRefusalNanos() >= refusalWindowNanos) {
                    bytes -= sizeOf(h.entry());
                    dropped++;
                    givenUp.add(w.exceptionNow());
                } else {
                    failures++;
                    offer(q, refused ? h.refusedOnceMore() : h.notRefused());
                }
            }
            if (bytes < maxBytes / 2) overflowing = false;
            boolean up = isUp.test(peer);
            more = failures == 0 && !q.isEmpty() && up;
            if (!more) delivering.remove(peer);
            // a run ends when the queue is empty, or when the peer is gone again (the next run logs anew)
            if (q.isEmpty() || !up) {
                Long start = deliveryStartNanos.remove(peer);
                Long count = deliveredThisRun.remove(peer);
                if (start != null) {
                    runEnded = String.format("peer %s: %d hinted write(s) delivered in %d ms%s", peer, count,
                            (System.nanoTime() - start) / 1_000_000, q.isEmpty() ? "" : ", " + q.size() + " left: it is down again");
                }
            }
        }
        if (runEnded != null) log.info(runEnded);
        for (Throwable t : givenUp) {
            log.warn("peer {} refused a hinted write {} times over {} s, dropped it: {}", peer, MAX_REFUSALS,
                    refusalWindowNanos / 1_000_000_000L, t.toString());
        }
        // failures: the peer went away again or refused; the periodic check tries again
        if (more) {
            try {
                loop.execute(() -> deliverBatch(peer));
            } catch (RejectedExecutionException e) { // stopping: close() reports what is left
                synchronized (this) {
                    delivering.remove(peer);
                }
            }
        }
    }

    /** A write kept for a peer; how often the peer, believed up, refused it, and since when. */
    private record Hint(Entry entry, int refusals, long firstRefusalNanos) {
        Hint refusedOnceMore() {
            return new Hint(entry, refusals + 1, refusals == 0 ? System.nanoTime() : firstRefusalNanos);
        }

        /** Failed while the peer was believed down: what counts is refusals in a row by a live peer. */
        Hint notRefused() {
            return refusals == 0 ? this : new Hint(entry, 0, 0);
        }
    }

    private static long sizeOf(Entry e) {
        return (long) e.key().length + (e.isTombstone() ? 0 : e.value().length) + OVERHEAD;
    }

    /**
     * Hints kept since start, delivered since start, dropped (no room, or refused), superseded by a
     * newer hint for the same key, and waiting now.
     */
    record Counts(long held, long delivered, long dropped, long superseded, long waiting) {}

    synchronized Counts counts() {
        long waiting = 0;
        for (LinkedHashMap<ByteBuffer, Hint> q : queues.values()) waiting += q.size();
        return new Counts(held, delivered, dropped, superseded, waiting);
    }

    @Override
    public void close() {
        checker.cancel(false);
        long waiting = counts().waiting();
        if (waiting > 0) log.warn("stopping with {} undelivered hinted write(s): their replicas catch up when the keys are read, or all at once with bin/dht repair", waiting);
    }
}
