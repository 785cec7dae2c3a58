package dht.node.cluster;

import dht.storage.Entry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the replicas a GET asked up to the newest version that GET saw. Once every replica call
 * of the read has completed (after the client was answered: the quorum does not wait for this),
 * the replicas that answered an older version, or none, are sent the newest one, but a value only
 * to those its own write is known to have targeted (a tombstone also to any replica holding an
 * older value, see below).
 *
 * <p>Why that limit: a PUT stores no more than its {@code from} copies (the contract), on the
 * first {@code from} replicas of the key's ordering, and a version does not record the {@code from}
 * it was written with. What is known: every replica holding the newest version was one of its
 * write's targets, so that write's {@code from} reaches at least one past the last holder in the
 * ordering, and every replica before the last holder was a target too. Those are repaired; one
 * after the last holder is not sent a value, as the write may have stopped short of it (PUT v1 with
 * 3/3, PUT v2 with 1/1, a GET with 3/3: v2 must not reach the second and third replicas). Such a
 * replica catches up by {@link HintedHandoff}, which keeps hints only for a write's own targets.
 *
 * <p>A tombstone is the exception: it goes to every replica that holds an older value, wherever
 * it is placed. The copy limit is the contract's rule for PUTs, and a stale value left beside a
 * tombstone is a deleted key waiting to come back: once the tombstones are purged (after the grace
 * period, storage-format.md) the old value would be the newest version left and be repaired onto
 * every replica. A replica with no version gets no tombstone: it has nothing to bring back.
 *
 * <p>Invariants: the version sent is one a replica already holds, with its original timestamp, so
 * a repair can never win over a newer write (a replica keeps the newer of two versions); tombstones
 * reach every stale value, so a delete that missed a replica does not come back; a repair never
 * makes a value's copies exceed its write's {@code from}. A replica whose call failed is not
 * repaired: nothing is known of what it holds. A failed repair is only counted: the next read of
 * the key tries again. {@code targets} is in the key's placement order.
 */
final class ReadRepair {
    private static final Logger log = LoggerFactory.getLogger(ReadRepair.class);

    private final Map<String, Replica> replicas;
    private final LongAdder sent = new LongAdder();
    private final LongAdder failed = new LongAdder();

    ReadRepair(Map<String, Replica> replicas) {
        this.replicas = replicas;
    }

    /** Repairs {@code targets} from the answers of {@code calls} (same order) once all are in. */
    void afterRead(List<String> targets, List<CompletableFuture<Entry>> calls) {
        if (calls.size() < 2) return;
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                .whenComplete((ignored, failure) -> repair(targets, calls));
    }

    private void repair(List<String> targets, List<CompletableFuture<Entry>> calls) {
        Entry newest = null;
        for (CompletableFuture<Entry> c : calls) {
            Entry e = answer(c);
            if (e != null && e.supersedes(newest)) newest = e;
        }
        if (newest == null) return; // no replica has the key: nothing to spread
        int lastHolder = -1;
        for (int i = 0; i < calls.size(); i++) {
            Entry e = answer(calls.get(i));
            if (e != null && !newest.supersedes(e)) lastHolder = i;
        }
        for (int i = 0; i < calls.size(); i++) {
            CompletableFuture<Entry> c = calls.get(i);
            if (c.isCompletedExceptionally()) continue;
            Entry held = answer(c);
            if (held != null && !newest.supersedes(held)) continue; // holds it already
            boolean targeted = i < lastHolder;
            boolean staleValueUnderADelete = newest.isTombstone() && held != null && !held.isTombstone();
            if (!targeted && !staleValueUnderADelete) continue;
            String url = targets.get(i);
            sent.increment();
            Entry version = newest;
            replicas.get(url).write(version).whenComplete((ok, writeFailure) -> {
                if (writeFailure != null) {
                    failed.increment();
                    log.debug("read repair of {} failed: {}", url, writeFailure.toString());
                }
            });
        }
    }

    private static Entry answer(CompletableFuture<Entry> call) {
        return call.isCompletedExceptionally() ? null : call.getNow(null);
    }

    /** Repair writes sent so far. */
    long sent() {
        return sent.sum();
    }

    /** Repair writes that failed. */
    long failed() {
        return failed.sum();
    }
}
