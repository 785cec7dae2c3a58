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
 * @param newestTimestamp the greatest timestamp of any version in the memtables and the live tables
 *                        ({@link Long#MIN_VALUE} when there is none; a table whose stats region
 *                        failed its checksum is left out): how a node tells that its clock went back
 */
public record StoreStats(int tables, long tableBytes, long memtableBytes, int pendingFlushes,
                         int pendingCompactions, long walBytes, int damagedTables, long entries,
                         long newestTimestamp) {
    /** The figures of version {@code v} (null: a closed store, all zero), with the active log's bytes and the compactions pending. */
    static StoreStats of(Version v, long activeWalBytes, int pendingCompactions) {
        if (v == null) return new StoreStats(0, 0, 0, 0, 0, 0, 0, 0, Long.MIN_VALUE);
        long tableBytes = 0;
        long entries = v.active.count();
        long newest = v.active.maxTimestamp();
        int damaged = 0;
        for (Table t : v.tables) {
            tableBytes += t.sizeBytes;
            entries += t.entryCount;
            if (t.damaged) damaged++;
            if (!t.statsDamaged) newest = Math.max(newest, t.maxTimestamp);
        }
        long mem = v.active.bytes();
        long walBytes = activeWalBytes;
        for (Memtable m : v.immutables) {
            mem += m.bytes();
            walBytes += m.walBytes;
            entries += m.count();
            newest = Math.max(newest, m.maxTimestamp());
        }
        return new StoreStats(v.tables.size(), tableBytes, mem, v.immutables.size(), pendingCompactions, walBytes, damaged, entries,
                newest);
    }
}
