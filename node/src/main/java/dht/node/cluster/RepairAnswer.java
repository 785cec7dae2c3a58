package dht.node.cluster;

/**
 * What a full repair of one key ({@code GET /v0/entity?...&repair=all}) came to: the read's answer,
 * as for any GET, and the replica writes it made. {@code sent} repair writes went out, {@code failed}
 * of them failed; {@code unreachable} replicas did not answer the read, so nothing is known of what
 * they hold and they were not repaired. The key is fully repaired when the answer is not
 * {@link Answer.Kind#NOT_ENOUGH_REPLICAS} and both {@code failed} and {@code unreachable} are 0.
 */
public record RepairAnswer(Answer answer, int sent, int failed, int unreachable) {
    /** The {@code X-Dht-Repair} header's value. */
    public String header() {
        return "sent=" + sent + " failed=" + failed + " unreachable=" + unreachable;
    }
}
