package dht.client;

/**
 * A scan's answer ended before its terminating chunk: the node closed the connection (a cluster
 * scan that could not reach {@code ack} replicas of some key, a node stopping, a network failure).
 * The entries already returned are genuine, but the range was not covered.
 */
public class IncompleteScanException extends DhtException {
    public IncompleteScanException(String node, String what, Throwable cause) {
        super("scan from node " + node + " was cut short: " + what, node, 0, cause);
    }
}
