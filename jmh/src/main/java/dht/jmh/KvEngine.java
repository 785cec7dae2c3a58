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

    @Override
    void close() throws IOException;

    /** {@code dht}, {@code dht-bN} (the dht engine with N-byte table blocks), {@code rocksdb}, {@code rocksdb-mmap}. */
    static KvEngine open(String name, Path dir) throws IOException {
        if (name.startsWith("dht-b")) return new DhtEngine(dir, Integer.parseInt(name.substring("dht-b".length())));
        return switch (name) {
            case "dht" -> new DhtEngine(dir);
            case "rocksdb" -> new RocksEngine(dir, false);
            case "rocksdb-mmap" -> new RocksEngine(dir, true);
            default -> throw new IllegalArgumentException("unknown engine " + name);
        };
    }
}
