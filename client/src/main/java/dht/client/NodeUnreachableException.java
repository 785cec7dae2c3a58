package dht.client;

/**
 * No connection could be made to any node the request could go to (refused, unresolvable host,
 * connect timeout). The request was never sent, so nothing changed. With several nodes configured,
 * this is thrown only once every one of them has failed to connect; the others' failures are
 * attached as suppressed exceptions.
 */
public class NodeUnreachableException extends DhtException {
    public NodeUnreachableException(String node, Throwable cause) {
        super("node " + node + " is unreachable: " + describe(cause), node, 0, cause);
    }

    private static String describe(Throwable cause) {
        if (cause == null) return "no connection";
        String m = cause.getMessage();
        return m == null || m.isBlank() ? cause.getClass().getSimpleName() : m;
    }
}
