package dht.node.cluster;

/** A client's write refused because this node's clock is off from its peers' ({@link ClockAgreement}): a 503. */
public final class ClockDisagreementException extends RuntimeException {
    public ClockDisagreementException(String reason) {
        super(reason, null, false, false);
    }
}
