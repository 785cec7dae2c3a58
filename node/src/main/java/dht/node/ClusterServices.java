package dht.node;

import dht.node.cluster.ClusterScanner;
import dht.node.cluster.ClusterView;
import dht.node.cluster.Coordinator;
import dht.node.rpc.ReplicaEndpoint;
import dht.storage.Store;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.util.concurrent.Executor;

/**
 * What the HTTP layer needs from the cluster layer, as one seam: the production implementation
 * adapts {@code dht.node.cluster.Cluster}; tests may start something smaller.
 */
public interface ClusterServices extends AutoCloseable {
    Coordinator coordinator();

    ReplicaEndpoint replicaEndpoint();

    /** This node's clock (its write timestamps' hybrid logical clock), for the probe's answer; 0: none. */
    default long clock() {
        return 0;
    }

    ClusterView view();

    ClusterScanner scanner();

    @Override
    void close();

    /**
     * Whether the writes the coordinator is asked for from one event loop in one pass of its loop
     * reach the store in the order they were asked for, as one batch, and nowhere else: then the
     * HTTP layer may start a connection's pipelined writes together. False unless an
     * implementation guarantees it.
     */
    default boolean writesOfOnePassInOrder() {
        return false;
    }

    /**
     * Called once the server answers requests, before the node counts as started: a node joining
     * for the first time asks to join here, so that the members' first writes to it find it
     * serving. Throws (the start fails) when the join is refused.
     */
    default void finishStart() throws IOException {
    }

    /** Membership changes this node takes part in or coordinates; null when it cannot change. */
    default dht.node.cluster.MembershipChanges membershipChanges() {
        return null;
    }

    /** The join streams this node sends as a member; null when its membership cannot change. */
    default dht.node.cluster.JoinStreams joinStreams() {
        return null;
    }

    /** What a leave asked of this node does; null when it cannot leave. */
    default dht.node.http.MembershipRoute.Leaving leaving() {
        return null;
    }

    /** Completes once this node has left the cluster (then its process should end). */
    default java.util.concurrent.CompletableFuture<Void> left() {
        return new java.util.concurrent.CompletableFuture<>();
    }

    /**
     * Starts the cluster layer for {@code config} over a store that is already open; {@code loops}
     * are the HTTP server's event loops, which the inter-node client may share (the node keeps
     * owning them).
     */
    @FunctionalInterface
    interface Starter {
        ClusterServices start(NodeConfig config, Store store, Executor storageExecutor, EventLoopGroup loops)
                throws IOException;
    }
}
