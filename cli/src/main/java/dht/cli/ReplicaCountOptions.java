package dht.cli;

import picocli.CommandLine.Option;

/**
 * {@code --ack} and {@code --from}, as the commands on one key mean them. Not part of
 * {@link ClientOptions}: a scan merges every node's data, so it has no use for {@code --from}, and
 * its {@code --ack} counts nodes covering the range, not a key's replicas ({@link ScanCommand}'s own).
 */
final class ReplicaCountOptions {
    @Option(names = "--ack", description = "Replicas that must answer (default: a majority of --from).")
    Integer ack;

    @Option(names = "--from", description = "Replicas to involve (default: the whole cluster).")
    Integer from;
}
