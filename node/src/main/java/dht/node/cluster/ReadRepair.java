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
 * each replica that answered with an older version of the key is sent the newest one.
 *
 * <p>Invariants: the version sent is one a replica already holds, with its original timestamp, so
 * a repair can never win over a newer write (a replica keeps the newer of two versions); tombstones
 * are repaired like values, so a delete that missed a replica does not come back. A replica that
 * has no version of the key is not repaired: the key may have been written with a smaller
 * {@code from} than this read's, and a PUT stores no more than {@code from} copies (the contract),
 * so read repair never adds a copy, it only updates one (a key a replica missed entirely reaches it
 * by {@link HintedHandoff}). A replica whose call failed is not repaired: nothing is known of what
 * it holds. A failed repair is only counted: the next read of the key tries again.
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
        for (int i = 0; i < calls.size(); i++) {
            CompletableFuture<Entry> c = calls.get(i);
            if (c.isCompletedExceptionally()) continue;
            Entry held = answer(c);
            if (held == null || !newest.supersedes(held)) continue;
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
