package dht.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * A file of checksummed entries in the write-ahead log's format (docs/storage-format.md,
 * "Write-ahead log"), for a caller outside the store that needs entries to survive a crash (the
 * node's hints). A reader keeps every intact record and drops a torn tail, exactly as the store's
 * recovery does.
 */
public final class RecordLog {
    private RecordLog() {}

    /** What a record of {@code e} takes in a file, near enough for byte budgets. */
    public static long size(Entry e) {
        return LogRecord.size(e);
    }

    /** Creates the file {@code path} (it must not exist) for appending. */
    public static Writer create(Path path) throws IOException {
        return new Writer(new WalWriter(0, path, NioStorageFiles.INSTANCE.create(path)));
    }

    /**
     * Hands every intact record of {@code path} to {@code sink}, in file order.
     *
     * @return how many records, and whether damage (not a torn tail) was found
     */
    public static ReadResult read(Path path, Consumer<Entry> sink) throws IOException {
        WalReader.Outcome o = WalReader.replay(NioStorageFiles.INSTANCE, path, sink);
        return new ReadResult(o.records(), o.skippedBytes(), o.damaged());
    }

    /**
     * @param records      records read
     * @param skippedBytes bytes not part of an intact record
     * @param damaged      whether intact records followed a broken one (damage, not a crash)
     */
    public record ReadResult(int records, long skippedBytes, boolean damaged) {}

    /** Appends to one file; one thread appends, {@link #sync} may come from another. */
    public static final class Writer implements Closeable {
        private final WalWriter log;

        private Writer(WalWriter log) {
            this.log = log;
        }

        /** Hands the records of {@code entries} to the OS (write()); {@link #sync} makes them durable. */
        public void append(List<Entry> entries) throws IOException {
            List<byte[]> heads = new java.util.ArrayList<>(entries.size());
            for (Entry e : entries) heads.add(LogRecord.head(e));
            log.append(heads, entries);
        }

        public void sync() throws IOException {
            log.sync();
        }

        /** Bytes appended through this writer. */
        public long bytes() {
            return log.bytes();
        }

        @Override
        public void close() throws IOException {
            log.close();
        }
    }
}
