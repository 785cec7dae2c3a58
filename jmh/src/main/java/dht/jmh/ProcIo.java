package dht.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's storage I/O from {@code /proc/self/io}, all threads together (RocksDB's native
 * background threads included): bytes it made the kernel read from storage and bytes it dirtied
 * for writing, less those cancelled because their file was truncated or deleted before writeback.
 */
record ProcIo(long readBytes, long writeBytes, long cancelledWriteBytes) {

    static ProcIo now() throws IOException {
        long read = 0;
        long write = 0;
        long cancelled = 0;
        for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
            String[] kv = line.split(":\\s*");
            switch (kv[0]) {
                case "read_bytes" -> read = Long.parseLong(kv[1].trim());
                case "write_bytes" -> write = Long.parseLong(kv[1].trim());
                case "cancelled_write_bytes" -> cancelled = Long.parseLong(kv[1].trim());
                default -> { }
            }
        }
        return new ProcIo(read, write, cancelled);
    }

    /** Bytes written since {@code before}: dirtied, less cancelled. */
    long writtenSince(ProcIo before) {
        return (writeBytes - before.writeBytes) - (cancelledWriteBytes - before.cancelledWriteBytes);
    }

    long readSince(ProcIo before) {
        return readBytes - before.readBytes;
    }
}
