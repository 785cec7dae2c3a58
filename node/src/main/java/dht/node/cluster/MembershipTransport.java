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

    /** The bytes {@code node} says its tables and memtable hold ({@code /v0/status}), or -1 if it cannot say. */
    long storedBytes(String node);
}
