package dht.node.cluster;

/**
 * A timestamp further ahead of the receiving node's physical clock than its max offset
 * ({@link HybridLogicalClock#observe(long, String)} refused it): a replica answers the write that
 * carried it as failed, and a coordinator counts a replica answer that carried it as failed.
 */
public final class TimestampRefusedException extends IllegalStateException {
    private final long aheadMillis;

    public TimestampRefusedException(long timestamp, long aheadMillis, long maxOffsetMillis) {
        super("timestamp " + timestamp + " is " + aheadMillis + " ms ahead of the clock, more than the max offset of "
                + maxOffsetMillis + " ms");
        this.aheadMillis = aheadMillis;
    }

    /** A peer's refusal, as its answer described it (how far ahead is then not known here: -1). */
    public TimestampRefusedException(String message) {
        super(message);
        this.aheadMillis = -1;
    }

    /** How far ahead of the refusing node's physical clock the timestamp was. */
    public long aheadMillis() {
        return aheadMillis;
    }
}
