package dht.cli;

import picocli.CommandLine.Option;

/**
 * {@code --from}, for the commands on one key only. Not part of {@link ClientOptions}: a scan merges
 * every node's data and has no use for it, and a shared option would show in its {@code --help}.
 */
final class ReplicaCountOption {
    @Option(names = "--from", description = "Replicas to involve (default: the whole cluster).")
    Integer from;
}
