package dht.bench;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** {@code dht bench ...} run in-process, for tests of its options: the exit code and what it printed. */
final class BenchCli {
    record Outcome(int exitCode, String stdout, String stderr) {
    }

    private BenchCli() {
    }

    static Outcome bench(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CommandLine(new BenchCommand()).setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .setExecutionStrategy(OptionsBeforeSubcommand.refused(new CommandLine.RunLast())).execute(args);
        return new Outcome(code, out.toString(), err.toString());
    }
}
