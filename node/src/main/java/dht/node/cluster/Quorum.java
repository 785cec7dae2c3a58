package dht.node.cluster;

/**
 * How many replicas a request involves ({@code from}) and how many must answer ({@code ack}).
 * Invariant: {@code 1 <= ack <= from}. Range checks against the cluster size happen where the
 * request is parsed, so that bad input is answered 400 before anything is touched.
 */
public record Quorum(int ack, int from) {
    public Quorum {
        if (ack < 1 || from < 1 || ack > from) {
            throw new IllegalArgumentException("need 1 <= ack <= from, got ack=" + ack + " from=" + from);
        }
    }

    /** The contract's default for a cluster of {@code n} nodes: from = n, ack = n/2 + 1. */
    public static Quorum defaultFor(int n) {
        return new Quorum(n / 2 + 1, n);
    }
}
