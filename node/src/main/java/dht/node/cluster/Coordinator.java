package dht.node.cluster;

import dht.storage.ReadBudget;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.concurrent.CompletableFuture;

/**
 * Coordinates one client request over the key's replicas (the first {@code from} nodes of the
 * key's placement order): sends to all of them in parallel, completes as soon as {@code ack}
 * answered or as soon as that has become impossible. Never blocks the calling thread; the future
 * never completes exceptionally for a replica failure (that is {@link Answer.Kind#NOT_ENOUGH_REPLICAS}).
 */
public interface Coordinator extends AutoCloseable {
    CompletableFuture<Answer> get(byte[] key, Quorum quorum);

    /**
     * A GET whose value, when this node's store reads it, is reserved in {@code budget} before it is
     * copied onto the heap. Refused by the budget and short of {@code ack} other answers, it is
     * {@link Answer.Kind#OVERLOADED}. Reservations made before the answer is complete are the
     * caller's to give back; the default, for a coordinator without a store of its own, reserves nothing.
     */
    default CompletableFuture<Answer> get(byte[] key, Quorum quorum, ReadBudget budget) {
        return get(key, quorum);
    }

    CompletableFuture<Answer> put(byte[] key, byte[] value, Quorum quorum);

    /**
     * A PUT of {@code value}'s readable bytes, which the caller keeps valid (its reference held,
     * its bytes unchanged) until this method returns; a coordinator that uses them later retains
     * what it needs and releases that itself. The default copies them onto the heap at once.
     */
    default CompletableFuture<Answer> put(byte[] key, ByteBuf value, Quorum quorum) {
        return put(key, ByteBufUtil.getBytes(value), quorum);
    }

    /**
     * A PUT as {@link #put(byte[], ByteBuf, Quorum)} whose value reads as absent {@code ttlSeconds}
     * after this coordinator stamps it, on every replica (0: never). The expiry is fixed here, once,
     * and travels with the write. The default, for a coordinator that keeps no expiry, takes only 0.
     */
    default CompletableFuture<Answer> put(byte[] key, ByteBuf value, Quorum quorum, long ttlSeconds) {
        if (ttlSeconds != 0) throw new UnsupportedOperationException("this coordinator keeps no expiry");
        return put(key, value, quorum);
    }

    CompletableFuture<Answer> delete(byte[] key, Quorum quorum);

    /**
     * A GET that waits for every replica of {@code quorum.from()} and, before answering, brings
     * each one that answered up to the newest version (an operator's repair, {@code repair=all}):
     * see {@link FullRepair}. The default, for a coordinator without replicas to bring up, is a
     * plain GET that repaired nothing.
     */
    default CompletableFuture<RepairAnswer> repair(byte[] key, Quorum quorum) {
        return get(key, quorum).thenApply(a -> new RepairAnswer(a, 0, 0, 0));
    }

    @Override
    void close();
}
