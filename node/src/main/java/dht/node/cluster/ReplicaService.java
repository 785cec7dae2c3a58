package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.Store;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * This node's store as its peers' coordinators reach it: the server side of replica calls, without
 * the transport ({@code dht.node.rpc.StoreReplicaEndpoint} turns requests into these calls and
 * their results into answers).
 *
 * <p>Invariants: store work is handed to the storage threads, or run on the calling event loop
 * only where it cannot wait ({@link StorageDispatcher}: writes the store commits at once, reads of
 * a store in memory);
 * every incoming write's timestamp is observed by this node's clock before it is applied, and a
 * write whose timestamp the clock refuses (too far ahead, see {@link HybridLogicalClock}) is not
 * applied: it fails with {@link TimestampRefusedException}.
 */
public final class ReplicaService {
    private final Store store;
    private final StorageDispatcher reads;
    private final StorageDispatcher writes;
    private final HybridLogicalClock clock;
    private final MembershipFence fence;
    /** Where pushed batches a membership change marked are counted: this node's {@link Rebalancer}, once it runs. */
    private volatile MovedIn movedIn = (change, keys, bytes) -> {};

    /** Counts versions a peer pushed, all written here, that membership change {@code change} moves. */
    interface MovedIn {
        void count(long change, int keys, long bytes);
    }

    ReplicaService(Store store, StorageDispatcher reads, StorageDispatcher writes, HybridLogicalClock clock,
                   MembershipFence fence) {
        this.store = store;
        this.reads = reads;
        this.writes = writes;
        this.clock = clock;
        this.fence = fence;
    }

    /** This node's fence: replica calls carry its version, and a newer one heard is pulled. */
    public MembershipFence fence() {
        return fence;
    }

    /**
     * Counts a peer's call among the writes on their way to this node's store
     * ({@link WritesInFlight}): call before {@link #refusal}, leave once the call is answered.
     */
    public WritesInFlight.Cohort enter() {
        return fence.writes().enter();
    }

    /**
     * This node's membership version, if a call made on {@code callVersion} must be refused (this
     * node is on a newer one: the call placed its key by a version it no longer uses), else -1; a
     * call on a newer version than this node's is served, and that version pulled
     * ({@link MembershipFence}).
     */
    public long refusal(long callVersion) {
        long mine = fence.version();
        if (callVersion < mine) return mine;
        if (callVersion > mine) fence.heard(callVersion, null);
        return -1;
    }

    /** This node's clock ({@link HybridLogicalClock#reading}); every answer carries it. */
    public long clock() {
        return clock.reading();
    }

    /**
     * Reads {@code key} on a storage thread (on the event loop when the store's data is in memory:
     * {@link StorageDispatcher#submitRead}) and turns its newest version (null if none) into the
     * answer there. {@code behindWrites}: through the write hand-off, so that the read runs after
     * the writes handed over before it (a batch holding writes keeps its order); else beside them.
     */
    public <T> CompletableFuture<T> read(byte[] key, boolean behindWrites, Function<Entry, T> answer) {
        CompletableFuture<T> result = new CompletableFuture<>();
        (behindWrites ? writes : reads).submitRead(result, store, () -> answer.apply(store.get(key)));
        return result;
    }

    /**
     * Applies a peer's timestamped value or tombstone on a storage thread; {@code answer} is made
     * there once written. Refused, unapplied, when its timestamp is too far ahead.
     */
    public <T> CompletableFuture<T> write(Entry entry, Supplier<T> answer) {
        if (!clock.observe(entry.timestamp(), "a coordinator's write")) {
            return CompletableFuture.failedFuture(clock.refusal(entry.timestamp()));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        writes.submitWrite(result, store, entry, () -> result.complete(answer.get()));
        return result;
    }

    /** From now on, {@link #movedIn} counts in {@code sink}. */
    void countMovesIn(MovedIn sink) {
        movedIn = sink;
    }

    /**
     * {@code keys} versions of {@code bytes} (counted as {@link #movedBytes}) that a peer pushed for
     * membership change {@code change}, every one of them written here.
     */
    public void movedIn(long change, int keys, long bytes) {
        movedIn.count(change, keys, bytes);
    }

    /** What a version counts for in the bytes a move moved. */
    public static long movedBytes(Entry e) {
        return RebalanceCounts.bytesOf(e);
    }
}
