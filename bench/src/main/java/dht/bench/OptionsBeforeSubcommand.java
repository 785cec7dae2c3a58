package dht.bench;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Refuses a command's own options when a subcommand follows: picocli takes {@code bench -d 10s sweep}
 * as bench's {@code -d}, which sweep never reads, so the option would be silently ignored. Bad usage
 * instead (exit 2), saying where the option goes. Help and version options stay allowed.
 */
public final class OptionsBeforeSubcommand {
    private OptionsBeforeSubcommand() {
    }

    /** {@code next}, after the check. */
    public static CommandLine.IExecutionStrategy refused(CommandLine.IExecutionStrategy next) {
        return parseResult -> {
            check(parseResult);
            return next.execute(parseResult);
        };
    }

    static void check(ParseResult parsed) {
        for (ParseResult p = parsed; p.hasSubcommand(); p = p.subcommand()) {
            List<OptionSpec> own = p.matchedOptions().stream().filter(o -> !o.usageHelp() && !o.versionHelp()).toList();
            if (own.isEmpty()) continue;
            String sub = p.subcommand().commandSpec().qualifiedName();
            throw new ParameterException(p.commandSpec().commandLine(), own.getFirst().longestName() + " is an option of '"
                    + p.commandSpec().qualifiedName() + "' alone, not of '" + sub + "'; give '" + sub + "' its own options after its name");
        }
    }
}
