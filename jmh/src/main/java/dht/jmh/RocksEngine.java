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
 * memtable, 4 KiB blocks, 10-bit bloom filter, no compression unless one is given; default leveled
 * compaction and background threads.
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
        this(dir, mmapReads, CompressionType.NO_COMPRESSION);
    }

    /** With the codec every level's blocks are written with. */
    RocksEngine(Path dir, boolean mmapReads, CompressionType compression) throws IOException {
        options = new Options().setCreateIfMissing(true).setWriteBufferSize(16L << 20).setAllowMmapReads(mmapReads)
                .setCompressionType(compression)
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
    public void settle() throws IOException {
        try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
            db.flush(f);
            while (db.getLongProperty("rocksdb.compaction-pending") != 0
                    || db.getLongProperty("rocksdb.num-running-compactions") != 0
                    || db.getLongProperty("rocksdb.num-running-flushes") != 0) {
                Thread.sleep(200);
            }
        } catch (RocksDBException e) {
            throw new IOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for compactions", e);
        }
    }

    @Override
    public long[] scanFor(long nanos) {
        long n = 0;
        long bytes = 0;
        long end = System.nanoTime() + nanos;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                bytes += it.key().length + it.value().length;
                n++;
                if ((n & 1023) == 0 && System.nanoTime() > end) break;
            }
        }
        return new long[] {n, bytes};
    }

    @Override
    public String shape() {
        StringBuilder sb = new StringBuilder("files per level");
        try {
            for (int level = 0; level < 7; level++) {
                sb.append(' ').append(db.getProperty("rocksdb.num-files-at-level" + level));
            }
        } catch (RocksDBException e) {
            return "files per level unknown: " + e.getMessage();
        }
        return sb.toString();
    }

    @Override
    public void close() {
        db.close();
        writeOptions.close();
        options.close();
    }
}
