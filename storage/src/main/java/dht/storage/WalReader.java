package dht.storage;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays one log file. Stops at the first record that is torn (file ends inside it) or fails its
 * CRC, and logs the file and offset: everything after that point was never acknowledged under
 * EVERY_WRITE (records are appended in order), so it is dropped.
 */
final class WalReader {
    private static final Logger log = LoggerFactory.getLogger(WalReader.class);

    private WalReader() {}

    /** @return the offset where valid records end */
    static long replay(StorageFiles files, Path path, Consumer<Entry> sink) throws IOException {
        long offset = 0;
        int count = 0;
        try (InputStream in = new BufferedInputStream(files.openRead(path), 1 << 16)) {
            byte[] header = new byte[LogRecord.HEADER];
            byte[] body = new byte[4096];
            while (true) {
                int n = in.readNBytes(header, 0, header.length);
                if (n == 0) break;
                if (n < header.length) {
                    log.warn("log {}: torn record header at offset {} ({} of {} bytes); dropping the tail",
                            path, offset, n, header.length);
                    break;
                }
                int crc = Bytes.getInt(header, 0);
                int len = Bytes.getInt(header, 4);
                if (len < LogRecord.BODY_FIXED || len > LogRecord.MAX_BODY) {
                    log.warn("log {}: bad record length {} at offset {}; dropping the tail", path, len, offset);
                    break;
                }
                if (body.length < len) body = new byte[Math.max(len, body.length * 2)];
                int got = in.readNBytes(body, 0, len);
                if (got < len) {
                    log.warn("log {}: torn record at offset {} ({} of {} bytes); dropping the tail",
                            path, offset, got, len);
                    break;
                }
                java.util.zip.CRC32C c = new java.util.zip.CRC32C();
                c.update(header, 4, 4);
                c.update(body, 0, len);
                if ((int) c.getValue() != crc) {
                    log.warn("log {}: checksum mismatch at offset {}; dropping the tail", path, offset);
                    break;
                }
                Entry e = LogRecord.decodeBody(body, len);
                if (e == null) {
                    log.warn("log {}: malformed record at offset {}; dropping the tail", path, offset);
                    break;
                }
                sink.accept(e);
                count++;
                offset += LogRecord.HEADER + len;
            }
        }
        log.info("log {}: replayed {} records ({} bytes)", path, count, offset);
        return offset;
    }
}
