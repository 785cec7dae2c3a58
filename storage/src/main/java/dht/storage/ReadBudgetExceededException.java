package dht.storage;

import java.io.IOException;

/**
 * A point read found a value that its {@link ReadBudget} could not take, so the value was not
 * copied. Not a fault of the store: the caller holds too many values at once and may retry later.
 */
public final class ReadBudgetExceededException extends IOException {
    private final int bytes;

    public ReadBudgetExceededException(int bytes) {
        super("the read budget cannot take a value of " + bytes + " bytes now");
        this.bytes = bytes;
    }

    /** An expected condition under load, thrown often then: no stack trace to fill in. */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }

    /** The length of the value that was not read. */
    public int bytes() {
        return bytes;
    }
}
