package dht.node.http;

/** Input the contract rejects with 400; the message is the plain-text reason sent to the client. */
public final class BadRequestException extends Exception {
    public BadRequestException(String reason) {
        super(reason, null, false, false);
    }
}
