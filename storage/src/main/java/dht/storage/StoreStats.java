package dht.storage;

/**
 * A snapshot of the engine's figures, for {@code GET /v0/status} and logs.
 *
 * @param tables          live sorted tables
 * @param tableBytes      bytes in live sorted tables
 * @param memtableBytes   approximate bytes in the active and immutable memtables
 * @param pendingFlushes  immutable memtables not yet written to a table
 * @param pendingCompactions compactions the engine would like to run now
 * @param walBytes        bytes in live write-ahead log files
 */
public record StoreStats(int tables, long tableBytes, long memtableBytes, int pendingFlushes,
                         int pendingCompactions, long walBytes) {
}
