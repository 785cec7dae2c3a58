package dht.client;

/**
 * The node refused the request as given (a 4xx answer other than 404 on a read): a malformed or
 * inconsistent {@code ack}/{@code from}, a {@code from} larger than the cluster, a value larger
 * than the node takes (413), and so on. Nothing was changed. The message is the node's one-line
 * reason; retrying the same request gets the same answer.
 */
public class BadRequestException extends DhtException {
    public BadRequestException(String node, int status, String reason) {
        super("node " + node + " refused the request (" + status + "): " + reason, node, status, reason, null);
    }
}
