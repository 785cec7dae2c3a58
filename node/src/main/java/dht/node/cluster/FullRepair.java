package dht.node.cluster;

import dht.storage.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's repair of one key ({@code GET /v0/entity?id=K&from=F&repair=all}, sent for every
 * key by {@code bin/dht repair}): once every one of the {@code F} replicas' reads is in (answered or
 * failed), the newest version goes to each replica that answered without it, and the client is
 * answered only after those writes are done, with their counts.
 *
 * <p>Why not {@link ReadRepair}'s limit: read repair cannot know the {@code from} a version was
 * written with, so it never sends a value past the last replica holding it. Here the operator says
 * it: {@code F} is how many copies every key should have, and a value goes to every one of the
 * first {@code F} replicas that lacks it (a key written with a smaller {@code from} is brought up to
 * {@code F} copies, which is the point of the request, and the copies it sends record {@code F}).
 * A tombstone goes to every replica holding
 * an older version, never to one holding nothing: there it would only take room, with nothing to
 * bring back.
 *
 * <p>Invariants, as for read repair: only a version some replica holds is sent, with its original
 * timestamp, so a repair never wins over a newer write; a replica whose read failed is left alone
 * (counted {@code unreachable}). Nothing blocks: the writes are chained on the reads' futures.
 */
final class FullRepair {
    private static final Logger log = LoggerFactory.getLogger(FullRepair.class);

    private final Map<String, Replica> replicas;
    private final LongAdder keys = new LongAdder();
    private final LongAdder sent = new LongAdder();
    private final LongAdder failed = new LongAdder();

    FullRepair(Map<String, Replica> replicas) {
        this.replicas = replicas;
    }

    /**
     * Repairs {@code targets} (the key's first {@code from} replicas, in placement order) from the
     * answers of {@code reads} (same order). The answer is the newest version among every answer,
     * or {@link Answer#NOT_ENOUGH_REPLICAS} when fewer than {@code ack} replicas answered; the
     * replicas that did answer are repaired either way.
     */
    CompletableFuture<RepairAnswer> repair(List<String> targets, List<CompletableFuture<Entry>> reads, int ack) {
        return repair(targets, reads, ack, 0);
    }

    /** As above, the targets placed by membership version {@code placedBy} (0: none), which the repairs carry. */
    CompletableFuture<RepairAnswer> repair(List<String> targets, List<CompletableFuture<Entry>> reads, int ack,
                                           long placedBy) {
        keys.increment();
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                .handle((ignored, failure) -> null)
                .thenCompose(ignored -> writeNewest(targets, reads, ack, placedBy));
    }

    private CompletableFuture<RepairAnswer> writeNewest(List<String> targets, List<CompletableFuture<Entry>> reads, int ack,
                                                        long placedBy) {
        Entry newest = null;
        int answered = 0;
        for (CompletableFuture<Entry> r : reads) {
            if (r.isCompletedExceptionally()) continue;
            answered++;
            Entry e = r.getNow(null);
            if (e != null && e.supersedes(newest)) newest = e;
        }
        int unreachable = reads.size() - answered;
        Answer answer = answered < ack ? Answer.NOT_ENOUGH_REPLICAS
                : newest == null || newest.isTombstone() ? Answer.NOT_FOUND : Answer.found(newest.value());
        // A value brought up to more copies than its write asked for records them, so that each
        // copy is in the trees of the replicas holding it: one still recording fewer is in none,
        // and a later overwrite with as few copies would leave it stale there for good.
        Entry copy = newest == null || newest.copies() == 0 || newest.copies() >= targets.size()
                ? newest : newest.withCopies(targets.size());
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < reads.size() && newest != null; i++) {
            CompletableFuture<Entry> r = reads.get(i);
            if (r.isCompletedExceptionally()) continue;
            Entry held = r.getNow(null);
            if (held != null && !newest.supersedes(held)) continue; // holds it already
            if (held == null && newest.isTombstone()) continue; // nothing to bring back
            String url = targets.get(i);
            writes.add(replicas.get(url).write(copy, placedBy).whenComplete((ok, writeFailure) -> {
                if (writeFailure != null) log.debug("full repair of {} failed: {}", url, writeFailure.toString());
            }));
        }
        sent.add(writes.size());
        if (writes.isEmpty()) return CompletableFuture.completedFuture(new RepairAnswer(answer, 0, 0, unreachable));
        return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).handle((ignored, failure) -> {
            int failures = 0;
            for (CompletableFuture<Void> w : writes) {
                if (w.isCompletedExceptionally()) failures++;
            }
            failed.add(failures);
            return new RepairAnswer(answer, writes.size(), failures, unreachable);
        });
    }

    /** Keys asked to be repaired so far. */
    long keys() {
        return keys.sum();
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
