package dht.node.cluster;

import dht.storage.Entry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * Versions a leaving node handed to this node, or this node's own push after a removal kept, for a
 * member that was down when the change was agreed (its laggard, which gains those keys) or is down
 * when pushed to: kept as hints for it in files of their own
 * ({@code DATA/handover}, as {@code DATA/hints}), synced before the hand-over is answered, and
 * delivered as hinted handoff delivers (once the failure detector sees the member up, paced,
 * retried). Until delivered they are the copy that member lacks, so unlike a coordinator's hints
 * they are not dropped for their age (the versions moved may be old), nor bounded on disk; only
 * the in-memory index is bounded, and a hand-over that finds no room is refused whole. The hints
 * of a member removed from the cluster are dropped with it.
 */
public final class HandedOverHints implements AutoCloseable {
    static final String DIR = "handover";
    private static final long SYNC_SECONDS = 30;

    private final HintedHandoff hints;
    /** Null: in memory only. */
    private final HintFiles files;

    /**
     * @param peers    the remote replicas, by URL, as hinted handoff takes them (read each time)
     * @param maxBytes the most bytes of the hints' index in memory
     * @param storage  where the coordinator's hints are kept (null: these are in memory only)
     */
    HandedOverHints(Map<String, Replica> peers, Predicate<String> isUp, ScheduledExecutorService loop, long maxBytes,
                    HintStorage storage) {
        files = storage == null ? null : new HintFiles(storage.dir().resolveSibling(DIR), storage.syncEveryWrite());
        HintSettings s = storage == null ? HintSettings.DEFAULTS : storage.settings();
        // ages taken at the epoch: none is ever too old
        hints = new HintedHandoff(peers, isUp, loop, maxBytes, HintedHandoff.REFUSAL_WINDOW,
                new HintSettings(s.window(), Long.MAX_VALUE, s.bytesPerSecond()), Duration.ofDays(1), files, () -> 0L);
    }

    /** As {@link HintedHandoff#deliverOnlyWhere}. */
    void deliverOnlyWhere(java.util.function.BiPredicate<String, Entry> owns) {
        hints.deliverOnlyWhere(owns);
    }

    /**
     * Keeps {@code entries} for {@code member}; returns once they are on disk.
     *
     * @throws IOException when {@code member} is not a peer, there was no room for all of them, or
     *                     they could not be synced: the hand-over is to be repeated
     */
    public void hold(String member, List<Entry> entries) throws IOException {
        int refused = 0;
        for (Entry e : entries) {
            if (!hints.hold(member, e)) refused++;
        }
        if (refused > 0) {
            throw new IOException(refused + " of " + entries.size() + " versions handed over for " + member
                    + " not kept: not a peer, or the hints' memory is full");
        }
        if (files == null) return;
        try {
            files.synced().get(SYNC_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while syncing the hand-over");
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("the hand-over for " + member + " not synced: " + e);
        }
    }

    /** The versions held for {@code member} now, as {@link HintedHandoff#held}; they stay held. */
    List<HintBatch> held(String member) {
        return hints.held(member);
    }

    /** Counts as {@link HintedHandoff#counts()}. */
    HintedHandoff.Counts counts() {
        return hints.counts();
    }

    @Override
    public void close() {
        hints.close();
    }
}
