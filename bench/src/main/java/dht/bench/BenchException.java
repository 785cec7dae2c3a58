package dht.bench;

/**
 * A failure to report to the user in one line, not a bug: bad usage (a bad option, exit 2) unless
 * made {@link #atRunTime} (an unreachable target, a node that would not start: exit 1), as every
 * mode of {@code bin/dht} tells the two apart.
 */
public final class BenchException extends RuntimeException {
    private final int exitCode;

    public BenchException(String message) {
        this(message, 2);
    }

    private BenchException(String message, int exitCode) {
        super(message);
        this.exitCode = exitCode;
    }

    /** Something that went wrong while running, not in how the command was asked for. */
    static BenchException atRunTime(String message) {
        return new BenchException(message, 1);
    }

    /** What the command exits with when this ends it. */
    public int exitCode() {
        return exitCode;
    }

    /**
     * Says {@code e} on stderr as {@code command}'s one-line failure and gives the exit code: this
     * exception's own, or 2 (bad usage) for a rejected argument.
     */
    static int report(String command, RuntimeException e) {
        System.err.println(command + ": " + e.getMessage());
        int code = e instanceof BenchException b ? b.exitCode : 2;
        // Bad usage is followed by where the usage is, as picocli's own refusals are (README, exit codes).
        if (code == 2) System.err.println("Try 'dht " + command + " --help' for more information.");
        return code;
    }
}
