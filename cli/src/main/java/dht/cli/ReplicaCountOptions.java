package dht.cli;

import dht.client.ReadOptions;
import dht.client.WriteOptions;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --ack} and {@code --from}, as the commands on one key mean them. Not part of
 * {@link ClientOptions}: a scan merges every node's data, so it has no use for {@code --from}, and
 * its {@code --ack} counts nodes covering the range, not a key's replicas ({@link ScanCommand}'s own).
 *
 * <p>Values no cluster can accept (zero, negative, {@code --ack} above {@code --from}) are bad
 * usage, exit 2, like a value that is not a number: the node would only answer 400, and exit 1 is
 * for what goes wrong at run time. Whether {@code --from} fits the cluster only the node knows.
 */
final class ReplicaCountOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    Integer ack;

    Integer from;

    @Option(names = "--ack", converter = DecimalDigits.ToInt.class, description = "Replicas that must answer (default: a majority of --from).")
    void ack(int value) {
        ack = positive(spec, "--ack", value);
        checkAckWithinFrom();
    }

    @Option(names = "--from", converter = DecimalDigits.ToInt.class, description = "Replicas to involve (default: the whole cluster).")
    void from(int value) {
        from = positive(spec, "--from", value);
        checkAckWithinFrom();
    }

    /** The read's options: the counts given, the rest left to the node. */
    ReadOptions read() {
        ReadOptions o = ReadOptions.defaults();
        if (ack != null) o = o.ack(ack);
        return from == null ? o : o.from(from);
    }

    /** The write's options: the counts given, the rest left to the node. */
    WriteOptions write() {
        WriteOptions o = WriteOptions.defaults();
        if (ack != null) o = o.ack(ack);
        return from == null ? o : o.from(from);
    }

    /** {@code value}, or bad usage (exit 2) when it is not a positive count: also for scan's own {@code --ack}. */
    static int positive(CommandSpec spec, String option, int value) {
        if (value < 1) throw new ParameterException(spec.commandLine(), option + " must be a positive integer, got " + value);
        return value;
    }

    private void checkAckWithinFrom() {
        if (ack != null && from != null && ack > from) {
            throw new ParameterException(spec.commandLine(), "--ack (" + ack + ") must not be larger than --from (" + from + ")");
        }
    }
}
