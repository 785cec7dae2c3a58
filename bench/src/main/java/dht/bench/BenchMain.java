package dht.bench;

import picocli.CommandLine;

/** Runs {@code bench} on its own (the CLI registers {@link BenchCommand} as {@code dht bench}). */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchCommand())
                .setExecutionStrategy(OptionsBeforeSubcommand.refused(new CommandLine.RunLast())).execute(args));
    }
}
