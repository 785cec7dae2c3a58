package dht.node.http;

import dht.node.cluster.Quorum;
import dht.node.text.Plural;

/** Reads {@code ack} and {@code from} against the cluster size, with the contract's defaults and 400s. */
final class QuorumParams {
    private QuorumParams() {
    }

    static Quorum parse(QueryParams params, int clusterSize) throws BadRequestException {
        return parse(params, clusterSize, false);
    }

    /** As {@link #parse(QueryParams, int)}; with {@code ackDefaultsToFrom} an absent {@code ack} is {@code from}, not a quorum of it. */
    static Quorum parse(QueryParams params, int clusterSize, boolean ackDefaultsToFrom) throws BadRequestException {
        return parse(params, ClusterSizes.everyNode(clusterSize), ackDefaultsToFrom);
    }

    /**
     * As {@link #parse(QueryParams, int, boolean)}, the default {@code from} being the replication
     * factor; an explicit {@code from} may still reach the number of members.
     */
    static Quorum parse(QueryParams params, ClusterSizes sizes, boolean ackDefaultsToFrom) throws BadRequestException {
        int clusterSize = sizes.nodes();
        int from = params.positiveInt("from", -1);
        int ack = params.positiveInt("ack", -1);
        boolean fromGiven = from != -1;
        if (from == -1) from = sizes.replicationFactor();
        if (from > clusterSize) {
            throw new BadRequestException("'from' is larger than the cluster (" + Plural.of(clusterSize, "node") + ")");
        }
        if (ack == -1) ack = ackDefaultsToFrom ? from : Quorum.defaultFor(from).ack();
        if (ack > from) {
            throw new BadRequestException("'ack' (" + ack + ") is larger than " + (fromGiven
                    ? "'from' (" + from + ")"
                    : sizes.replicationFactor() == clusterSize
                    ? "the cluster (" + Plural.of(clusterSize, "node") + ", the default 'from')"
                    : "the replication factor (" + sizes.replicationFactor() + ", the default 'from')"));
        }
        return new Quorum(ack, from);
    }
}
