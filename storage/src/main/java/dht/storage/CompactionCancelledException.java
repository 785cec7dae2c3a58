package dht.storage;

/**
 * Thrown out of a compaction (its merge, its pacing, its second checksum pass) when the store
 * closes mid-compaction; nothing was installed. Carries no stack trace: it is an expected stop.
 */
final class CompactionCancelledException extends RuntimeException {
    CompactionCancelledException() { super("store closing", null, false, false); }
}
