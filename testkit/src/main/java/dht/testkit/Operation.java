package dht.testkit;

/**
 * One client operation on one key, as a {@link History} recorded it: who issued it, what it did,
 * when it was invoked and when its answer came back ({@link System#nanoTime()}), and what the
 * answer said.
 *
 * <p>{@code value} is the value a PUT wrote, or the value an OK GET read ({@code null}: the key
 * was absent, a 404); it is {@code null} for a DELETE and for a GET that did not succeed. An
 * operation still in flight is {@link Outcome#UNKNOWN} with {@code completeNanos} equal to
 * {@link #NEVER}; the checker treats every unknown write as never completed, whenever the client
 * gave up on it.
 */
public record Operation(long id, int process, Type type, String key, String value,
                        long invokeNanos, long completeNanos, Outcome outcome) {

    /** The completion time of an operation whose answer never came. */
    public static final long NEVER = Long.MAX_VALUE;

    public enum Type { PUT, GET, DELETE }

    public enum Outcome {
        /** 200/404 for a GET, 201 for a PUT, 202 for a DELETE: the store promised the result. */
        OK,
        /** A definite refusal (4xx): the operation changed nothing. */
        FAIL,
        /** 504, a timeout, a connection lost mid-request: a write may or may not take effect, at any later time. */
        UNKNOWN
    }

    public Operation {
        if (type == null || key == null || outcome == null) throw new IllegalArgumentException("type, key and outcome are required");
        if (type == Type.PUT && value == null) throw new IllegalArgumentException("a PUT writes a value");
        if (type == Type.DELETE && value != null) throw new IllegalArgumentException("a DELETE writes no value");
        if (completeNanos != NEVER && completeNanos < invokeNanos)
            throw new IllegalArgumentException("operation " + id + " completes before it is invoked");
    }

    public boolean isWrite() {
        return type != Type.GET;
    }

    /** When this operation is known to have taken effect: its completion, or never if the outcome is unknown. */
    public long effectiveCompleteNanos() {
        return outcome == Outcome.UNKNOWN ? NEVER : completeNanos;
    }
}
