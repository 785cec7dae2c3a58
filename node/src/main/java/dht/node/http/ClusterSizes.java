package dht.node.http;

/**
 * What a request's {@code ack} and {@code from} are checked against, read per request because the
 * membership may change while the node runs: the number of members ({@code from} may reach it) and
 * the replication factor (the default {@code from}). Invariant: {@code 1 <= replicationFactor <= nodes}.
 */
public record ClusterSizes(int nodes, int replicationFactor) {
    public ClusterSizes {
        if (nodes < 1 || replicationFactor < 1 || replicationFactor > nodes) {
            throw new IllegalArgumentException("need 1 <= replicationFactor <= nodes, got " + replicationFactor + " of " + nodes);
        }
    }

    /** A static cluster of {@code n} nodes with a copy of every key on each. */
    public static ClusterSizes everyNode(int n) {
        return new ClusterSizes(n, n);
    }
}
