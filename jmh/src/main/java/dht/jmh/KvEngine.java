package dht.jmh;

import java.io.IOException;
import java.nio.file.Path;

/** The few operations the benchmarks run, so the dht engine and RocksDB run the same code. */
interface KvEngine extends AutoCloseable {
    void put(byte[] key, byte[] value) throws IOException;

    /** True when the key has a value. */
    boolean get(byte[] key) throws IOException;

    /** Reads every entry in key order; returns how many there were. */
    long scanAll() throws IOException;

    /** Flushes and merges everything into as few tables as the engine makes. */
    void compactAll() throws IOException;

    /** Flushes the memtable and waits until the engine has no flush or compaction left to do. */
    void settle() throws IOException;

    /**
     * Reads entries in key order from the first until the end or until {@code nanos} have passed;
     * returns {count, key and value bytes}.
     */
    long[] scanFor(long nanos) throws IOException;

    /** A short line on the engine's files: tables, or tables per level. */
    String shape();

    @Override
    void close() throws IOException;

    /**
     * {@code dht}, {@code dht-bN} (the dht engine with N-byte table blocks), {@code rocksdb},
     * {@code rocksdb-mmap}; {@code dht-lz4} and {@code rocksdb-lz4} write LZ4-compressed blocks.
     */
    static KvEngine open(String name, Path dir) throws IOException {
        if (name.startsWith("dht-b")) return new DhtEngine(dir, Integer.parseInt(name.substring("dht-b".length())));
        return switch (name) {
            case "dht" -> new DhtEngine(dir);
            case "dht-lz4" -> new DhtEngine(dir, 4096, dht.storage.Compression.LZ4);
            case "rocksdb" -> new RocksEngine(dir, false);
            case "rocksdb-lz4" -> new RocksEngine(dir, false, org.rocksdb.CompressionType.LZ4_COMPRESSION);
            case "rocksdb-mmap" -> new RocksEngine(dir, true);
            default -> throw new IllegalArgumentException("unknown engine " + name);
        };
    }
}
