package dht.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of dht.jar: one picocli command tree for every mode of {@code bin/dht}.
 * Exit codes: 0 success, 1 runtime failure, 2 bad usage.
 */
@Command(name = "dht", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "A distributed key-value store.",
        subcommands = {ServeCommand.class, ClusterCommand.class, GetCommand.class, PutCommand.class,
                DeleteCommand.class, ScanCommand.class, dht.bench.BenchCommand.class,
                CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return new CommandLine(new Main()).execute(args);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"dht " + (v == null ? "dev" : v) + " on Java " + Runtime.version()};
        }
    }
}
