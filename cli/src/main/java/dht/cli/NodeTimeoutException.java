package dht.cli;

import java.io.IOException;

/**
 * The node took the request but sent no answer in time (frozen, or overloaded past the client's
 * timeout). Like {@link NodeUnreachableException} an everyday situation for a client, reported by
 * {@link Main} in one line; unlike it, the request may have reached the node and taken effect,
 * which the message says for a request that changes something (a read only asked).
 */
final class NodeTimeoutException extends IOException {
    NodeTimeoutException(String url, int seconds, boolean changes, Throwable cause) {
        super("no answer from node " + url + " within " + seconds + " s"
                + (changes ? " (the request may still have taken effect)" : ""), cause);
    }
}
