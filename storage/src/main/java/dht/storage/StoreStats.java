package dht.storage;

/**
 * A snapshot of the engine's figures, for {@code GET /v0/status} and logs.
 *
 * @param tables          live sorted tables
 * @param tableBytes      bytes in live sorted tables
 * @param memtableBytes   approximate bytes in the active and immutable memtables
 * @param pendingFlushes  immutable memtables not yet written to a table
 * @param pendingCompactions compactions not finished: the one running, if any, and those due now
 * @param walBytes        bytes in live write-ahead log files
 * @param damagedTables   live tables in which a read or a compaction found a block that fails its
 *                        checksum (each logged once with its file and offset): reads that need such
 *                        a block fail, everything else is served, and compaction leaves the table as it is
 * @param entries         versions in the live tables and memtables (a key overwritten before a
 *                        compaction counts once per version): what a scan of the store reads, at most
 */
public record StoreStats(int tables, long tableBytes, long memtableBytes, int pendingFlushes,
                         int pendingCompactions, long walBytes, int damagedTables, long entries) {
}
