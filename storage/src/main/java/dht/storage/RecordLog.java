package dht.storage;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
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

    /** Receives each intact record of a file and the offset where it starts. */
    public interface Sink {
        void record(long offset, Entry e);
    }

    /**
     * As {@link #read}, with each record's offset, which {@link #readAt} takes
     * back.
     */
    public static ReadResult readWithOffsets(Path path, Sink sink) throws IOException {
        WalReader.Outcome o = WalReader.replayWithOffsets(NioStorageFiles.INSTANCE, path, sink::record);
        return new ReadResult(o.records(), o.skippedBytes(), o.damaged());
    }

    /**
     * The one record that starts at {@code offset} of {@code file} (an offset {@link #read} gave, or
     * {@link Writer#bytes()} before the append that wrote it), or null if what is there is not an
     * intact record: a torn or damaged fragment, a file cut short, or an offset inside a record.
     */
    public static Entry readAt(FileChannel file, long offset) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(LogFormat.HEADER);
        byte[] body = null;
        int bodyLength = 0;
        long p = offset;
        while (true) {
            int room = LogFormat.BLOCK - (int) (p % LogFormat.BLOCK);
            if (room < LogFormat.HEADER) { // the zeros of a block tail: the fragment starts the next block
                p += room;
                continue;
            }
            header.clear();
            if (!readFully(file, header, p)) return null;
            byte[] h = header.array();
            int len = (h[4] & 0xFF) | (h[5] & 0xFF) << 8;
            byte type = h[6];
            if (len > room - LogFormat.HEADER || (long) bodyLength + len > LogRecord.MAX_BODY) return null;
            boolean first = type == LogFormat.FULL || type == LogFormat.FIRST;
            if (first != (body == null) || type < LogFormat.FULL || type > LogFormat.LAST) return null;
            byte[] fragment = new byte[len + 1]; // the type byte and the payload, as the CRC covers them
            fragment[0] = type;
            if (!readFully(file, ByteBuffer.wrap(fragment, 1, len), p + LogFormat.HEADER)) return null;
            if (LogFormat.crc(fragment, 0, len) != Bytes.getInt(h, 0)) return null;
            if (body == null) body = new byte[len];
            if (body.length < bodyLength + len) body = java.util.Arrays.copyOf(body, Math.max(2 * body.length, bodyLength + len));
            System.arraycopy(fragment, 1, body, bodyLength, len);
            bodyLength += len;
            p += LogFormat.HEADER + len;
            if (type == LogFormat.FULL || type == LogFormat.LAST) return LogRecord.decodeBody(body, bodyLength);
        }
    }

    /** Fills {@code buf} from {@code position}; false if the file ends first. */
    private static boolean readFully(FileChannel file, ByteBuffer buf, long position) throws IOException {
        while (buf.hasRemaining()) {
            int n = file.read(buf, position);
            if (n < 0) return false;
            position += n;
        }
        return true;
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
            log.append(entries);
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
