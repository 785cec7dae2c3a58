package dht.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of dht.jar: one picocli command tree for every mode of {@code bin/dht}.
 * Exit codes: 0 success, 1 runtime failure, 2 bad usage.
 *
 * <p>Not a Runnable on purpose: {@code dht} alone names no mode, which is bad usage like an unknown
 * option, so picocli answers it the same way ("Missing required subcommand" and the usage on
 * stderr, exit 2), and a script that forgot its subcommand fails instead of passing. The usage on
 * stdout with exit 0 is for {@code --help}, {@code -h} and {@code help}.
 *
 * <p>Any other bad usage gets the reason and a pointer to {@code --help}, not the usage itself
 * ({@link #badUsage}).
 */
@Command(name = "dht", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "A distributed key-value store.",
        subcommands = {ServeCommand.class, ClusterCommand.class, GetCommand.class, PutCommand.class,
                DeleteCommand.class, ScanCommand.class, RepairCommand.class, VerifyCommand.class, dht.bench.BenchCommand.class,
                LeaveCommand.class, RemoveCommand.class,
                CommandLine.HelpCommand.class})
public final class Main {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The configured command tree, for {@link #run} and for tests that capture its output. */
    static CommandLine commandLine() {
        return new CommandLine(new Main()).setExecutionExceptionHandler(Main::handle)
                .setParameterExceptionHandler(Main::badUsage)
                .setExecutionStrategy(dht.bench.OptionsBeforeSubcommand.refused(new CommandLine.RunLast()));
    }

    /** The line after every bad usage's reason (README), for the mode named: where its usage is. */
    static final String HELP_POINTER = "Try '%s --help' for more information.";

    /**
     * Bad usage found by a mode itself, after picocli parsed it, said as picocli's is: "dht MODE:
     * reason", then the help pointer, on stderr; the exit code to return (2).
     */
    static int usageError(String mode, String reason) {
        System.err.println("dht " + mode + ": " + reason);
        System.err.println(HELP_POINTER.formatted("dht " + mode));
        return 2;
    }

    // picocli's default follows the reason with the command's whole usage (40 lines for serve), so a
    // bad value's one line scrolled away above it. 'dht' alone keeps the usage: there is no mistake
    // to point at, and the list of modes is what is missing.
    private static int badUsage(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        String dashed = unknownDashedArgument(e);
        if (dashed != null) {
            // picocli reports the missing KEY, not the option it did not know: the usual cause is a
            // key that starts with '-' (dht get -dash), which only '--' makes a key
            // only where there is a KEY to mean: leave and remove take none
            String hint = cmd.getCommandSpec().positionalParameters().isEmpty() ? ""
                    : " (a KEY that starts with '-' goes after '--': " + cmd.getCommandSpec().qualifiedName() + " -- " + dashed + ")";
            err.println(cmd.getColorScheme().errorText("Unknown option: '" + dashed + "'" + hint));
            err.println(HELP_POINTER.formatted(cmd.getCommandSpec().qualifiedName()));
            err.flush();
            return cmd.getCommandSpec().exitCodeOnInvalidInput();
        }
        err.println(cmd.getColorScheme().errorText(e.getMessage()));
        if (args.length == 0) {
            cmd.usage(err, cmd.getColorScheme());
        } else {
            CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
            err.println(HELP_POINTER.formatted(cmd.getCommandSpec().qualifiedName()));
        }
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** The first argument that looked like an option and matched none, when picocli reported a missing parameter instead. */
    private static String unknownDashedArgument(CommandLine.ParameterException e) {
        if (!(e instanceof CommandLine.MissingParameterException)) return null;
        CommandLine.ParseResult parsed = e.getCommandLine().getParseResult();
        if (parsed == null) return null;
        for (String a : parsed.unmatched()) {
            if (a.startsWith("-") && !a.equals("-") && !a.equals("--")) return a;
        }
        return null;
    }

    // An unreachable or silent node is an everyday situation for a client, so it gets one line instead of a
    // stack trace; anything else is unexpected and keeps picocli's default (trace, exit 1).
    private static int handle(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) throws Exception {
        // a client failure without an answer to show (ClientOptions.failed): the connection broke
        if (e instanceof NodeUnreachableException || e instanceof NodeTimeoutException || e instanceof dht.client.DhtException) {
            cmd.getErr().println("dht: " + e.getMessage());
            cmd.getErr().flush();
            return 1;
        }
        throw e;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"dht " + (v == null ? "dev" : v) + " on Java " + Runtime.version()};
        }
    }
}
