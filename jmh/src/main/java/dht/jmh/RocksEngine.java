package dht.jmh;

import java.io.IOException;
import java.nio.file.Path;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * RocksDB with settings translated from the dht engine's: WAL on without sync per write, 16 MiB
 * memtable, 4 KiB blocks, 10-bit bloom filter, no compression (dht does not compress).
 * {@code mmapReads} makes RocksDB read tables through mmap as the dht engine does (otherwise it
 * preads blocks into its default 8 MiB block cache).
 */
final class RocksEngine implements KvEngine {
    static {
        RocksDB.loadLibrary();
    }

    private final Options options;
    private final WriteOptions writeOptions;
    private final RocksDB db;

    RocksEngine(Path dir, boolean mmapReads) throws IOException {
        options = new Options().setCreateIfMissing(true).setWriteBufferSize(16L << 20).setAllowMmapReads(mmapReads)
                .setCompressionType(CompressionType.NO_COMPRESSION)
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockSize(4096)
                        .setFilterPolicy(new BloomFilter(10, false)));
        writeOptions = new WriteOptions().setSync(false).setDisableWAL(false);
        try {
            db = RocksDB.open(options, dir.toString());
        } catch (RocksDBException e) {
            throw new IOException(e);
        }
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        try {
            db.put(writeOptions, key, value);
        } catch (RocksDBException e) {
            throw new IOException(e);
        }
    }

    @Override
    public boolean get(byte[] key) throws IOException {
        try {
            return db.get(key) != null;
        } catch (RocksDBException e) {
            throw new IOException(e);
        }
    }

    @Override
    public long scanAll() {
        long n = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                it.key();
                it.value();
                n++;
            }
        }
        return n;
    }

    @Override
    public void compactAll() throws IOException {
        try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
            db.flush(f);
            db.compactRange();
        } catch (RocksDBException e) {
            throw new IOException(e);
        }
    }

    @Override
    public void close() {
        db.close();
        writeOptions.close();
        options.close();
    }
}
