package dht.storage;

/** Constants of the sorted-table file format (docs/storage-format.md, "Sorted table"). */
final class TableFormat {
    static final long MAGIC = 0x3153_4254_5448_4444L; // "DDHTTBS1" read little-endian
    /**
     * The version written: blocks may be compressed ({@link DataBlock}), and an entry's expiry field
     * is its expiry word ({@link Entry#expiryWord}), which an older build would read as a far expiry.
     */
    static final int VERSION = 5;
    /**
     * The oldest version read: 4 has the same layout with expiries whose top bits are 0 (copies not
     * known), 3 that with every block uncompressed, so their tables are read as they are. Any
     * other version is refused.
     */
    static final int OLDEST_READ = 3;
    static final int FOOTER = 48;
    /** The stats region, just before the footer: max_timestamp i64, crc32c u32. */
    static final int STATS = 12;
    static final int ENTRY_HEADER = 24; // key_len u32, value_len i32, timestamp i64, expiry i64
    static final int TOMBSTONE_LEN = -1;
    /**
     * A value of this many bytes or more is written in a data block of its own, stored raw whatever
     * the table's codec (a writer's choice: readers take any block either way), so that a scan
     * reads it in place from the mapping rather than decompressing it whole onto the heap.
     */
    static final int OWN_BLOCK_VALUE = 64 * 1024;

    private TableFormat() {}
}
