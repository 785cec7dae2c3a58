package dht.node.cluster;

import dht.storage.Entry;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How anti-entropy reaches a peer (implemented over the internal protocol by
 * {@code dht.node.rpc.TreeClient}, docs/wire-format.md "Anti-entropy"). Futures never block the
 * caller; they fail when the peer is down or did not answer in time.
 */
public interface TreeTransport {
    /**
     * The peer's hash tree over the keys it shares with this node, asked on membership
     * {@code version} (a peer on another version refuses).
     */
    CompletableFuture<MerkleTree> tree(String peer, long version);

    /**
     * One page of the peer's entries, in key order from {@code start} (inclusive), of the keys it
     * shares with this node whose leaf is in {@code leaves}, asked on membership {@code version}.
     */
    CompletableFuture<TreePage> page(String peer, long version, BitSet leaves, byte[] start);

    /** Writes {@code entries}, with their own timestamps, on the peer through its replica write path. */
    default CompletableFuture<Void> push(String peer, List<Entry> entries) {
        return push(peer, entries, 0);
    }

    /**
     * {@link #push(String, List)}, marked as data a membership change moves when {@code change} is
     * positive (the change's membership version), so that the peer counts what it takes in
     * ({@code rebalance} in its status); 0: unmarked, a repair.
     */
    CompletableFuture<Void> push(String peer, List<Entry> entries, long change);
}
