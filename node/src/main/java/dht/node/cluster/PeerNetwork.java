package dht.node.cluster;

import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/**
 * How this node reaches its peers: the transport under the cluster layer, implemented over the
 * internal protocol by {@code dht.node.rpc.PeerClient}. Placement, quorums, hints, repair and the
 * cluster scan see the peers only through this and the {@link Replica}s and {@link ScanSource}s it
 * gives out.
 */
public interface PeerNetwork extends AutoCloseable {
    /**
     * {@code peer} as a replica; every answer's timestamps are observed by {@code clock}, so that a
     * write this node stamps later is above anything the peer has seen, and every call carries
     * {@code fence}'s membership version (a peer on a newer one refuses it).
     *
     * @param batch       whether the calls to this peer made on the event loops the network was
     *                    lent are coalesced per pass of the loop (never on loops of its own)
     * @param batchWrites whether writes are coalesced too, not only reads
     */
    Replica replica(String peer, HybridLogicalClock clock, MembershipFence fence, boolean batch, boolean batchWrites);

    /** The failure detector's belief: has the peer answered recently, or not failed yet? */
    boolean isUp(String peer);

    /**
     * Opens {@code peer}'s part of a cluster scan of {@code [start, end)}; reads start at once.
     *
     * @throws ScanSource.ScanSourceException when the stream cannot be opened (the peer is known down)
     */
    default ScanSource openScan(String peer, byte[] start, byte[] end) {
        return openScan(peer, start, end, 0);
    }

    /**
     * As {@link #openScan(String, byte[], byte[])}, the peer stopping after {@code limit} values
     * (records that are not tombstones; 0: no limit). A peer that does not know the limit sends
     * the whole range: a reader must not take a stream's end for the range's end when it holds
     * exactly {@code limit} values.
     */
    ScanSource openScan(String peer, byte[] start, byte[] end, int limit);

    /**
     * Opens {@code peer}'s stream to {@code joiner}, a node joining in membership {@code version},
     * from {@code start} to the end: the versions of the keys {@code peer} sends it
     * ({@link JoinStreamKeys}), sorted; with {@code instead} not null, those it sends in that
     * member's stead. This default reads the peer's whole store from {@code start}, a superset:
     * the joiner keeps only its keys either way.
     *
     * @throws ScanSource.ScanSourceException when the stream cannot be opened
     */
    default ScanSource openJoinStream(String peer, byte[] start, String joiner, long version, String instead) {
        return openScan(peer, start, null);
    }

    /**
     * Anti-entropy's transport to the peers, asking as {@code self}; null when the network has
     * none (then no exchanges start).
     */
    default TreeTransport trees(String self) {
        return null;
    }

    /**
     * Lets {@code clock} hear the clock each peer's failure-detector probe answer carries, so that
     * whether the clocks agree ({@link ClockAgreement}) is known without traffic. This default hears nothing.
     */
    default void hearClocksWith(HybridLogicalClock clock) {
    }

    /**
     * Asks every peer once for its clock, heard as a probe's answer is ({@link #hearClocksWith});
     * completes when each has answered or failed. This default asks no one.
     */
    default java.util.concurrent.CompletableFuture<Void> askClocks() {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }

    /** Makes {@code peer} reachable (a node that joined after the network opened); known peers are left as they are. */
    default void addPeer(String peer) {
        throw new UnsupportedOperationException("this peer network cannot add peers");
    }

    /**
     * {@code peer} is no longer in the cluster (it left or was removed): stop probing it. Calls to
     * it still work; a later {@link #addPeer} brings it back.
     */
    default void retirePeer(String peer) {
    }

    /** One of the event loops the network runs on, for hinted handoff's checks and deliveries. */
    ScheduledExecutorService scheduler();

    /** Stops what the network started; event loops it was lent keep running. */
    @Override
    void close();

    /** Opens the network of {@code self} to the other {@code nodes}. */
    @FunctionalInterface
    interface Opener {
        /**
         * @param timeout how long to wait for one peer (connect and answer) before counting it failed
         * @param loops   the event loops to run on (the HTTP server's, still owned by the caller), or
         *                null for loops of its own
         */
        PeerNetwork open(String self, List<String> nodes, Duration timeout, EventLoopGroup loops);
    }
}
