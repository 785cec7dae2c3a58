package dht.bench;

/** A failure to report to the user in one line (unreachable target, bad option), not a bug. */
public final class BenchException extends RuntimeException {
    public BenchException(String message) {
        super(message);
    }
}
