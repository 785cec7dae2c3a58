package dht.node.cluster;

/**
 * How membership changes reach other nodes: {@code /internal/v0/membership} (docs/wire-format.md,
 * "Membership"), implemented by {@code dht.node.rpc.MembershipClient}. Calls block: they run on
 * the thread of a change, never on an event loop.
 */
public interface MembershipTransport {
    /**
     * Sends {@code op} with the query {@code params} (already encoded, may be empty) and
     * {@code body} (a membership's text, or empty) to {@code node}; returns the answer's body.
     *
     * @throws MembershipChangeException with the node's status and reason when it refused, or 503
     *                                   when it did not answer
     */
    byte[] call(String node, String op, String params, byte[] body) throws MembershipChangeException;

    /** What {@code node} says its tables and memtables hold ({@code /v0/status}); -1 for what it cannot say. */
    Stored stored(String node);

    /** Bytes as stored (tables compressed) and versions a node holds; -1 each when not known. */
    record Stored(long bytes, long entries) {
        public static final Stored UNKNOWN = new Stored(-1, -1);
        static final Stored NONE = new Stored(0, 0);

        /** This and {@code other} together; what either cannot say, not known. */
        Stored plus(Stored other) {
            return new Stored(sum(bytes, other.bytes), sum(entries, other.entries));
        }

        /** About one of {@code parts} equal shares of this. */
        Stored share(int parts) {
            return new Stored(bytes > 0 ? bytes / parts : bytes, entries > 0 ? entries / parts : entries);
        }

        private static long sum(long a, long b) {
            return a < 0 || b < 0 ? -1 : a + b;
        }
    }
}
