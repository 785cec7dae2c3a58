package dht.node.http;

/**
 * The user event a graceful stop fires down every open connection once the requests in flight are
 * answered: the connection's last word. {@link RequestAssembler} answers a request whose body is
 * still arriving {@code 503} (and drops it: a write is never half-applied), then passes on
 * {@link #STOP} or, when the client is still sending a body it will not see answered otherwise,
 * {@link #STOP_WHILE_CLIENT_SENDS}; {@link ResponseSequencer} then closes the connection.
 */
public enum GracefulStop {
    /** Fired by the node: close this connection. Idle, or in the middle of a head (nothing decoded yet): closed at once, no answer. */
    STOP,
    /** The client is still sending the rest of a body that was refused: close with a {@link LingeringClose}. */
    STOP_WHILE_CLIENT_SENDS
}
