package dht.storage;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays one log file, keeping every record it can prove intact. A record that fails (cut short by
 * the end of the file, a length out of range, a CRC mismatch, a malformed body) is skipped, and
 * replay goes on from the next record boundary it can prove:
 * <ol>
 * <li>where the failed record's own length says it ends, if an intact record starts there (a byte
 *     flipped in a body or a CRC: the common case, since bodies are most of the bytes);</li>
 * <li>else (the length itself may be the damage) the first later offset from which intact records
 *     follow one another to the exact end of the file.</li>
 * </ol>
 * If neither exists, the rest is a torn or damaged tail and is dropped, as after a crash.
 *
 * <p>Why go on instead of stopping: a crash leaves at most a torn tail (nothing valid after it), but
 * a byte flipped in the middle of a log is damage, and the records after it were acknowledged writes
 * whose checksums still prove them; stopping would drop them all. Why rule 2 asks for a chain to
 * the end rather than one intact record: a value may itself contain the bytes of a log record (a
 * log stored as a value), and a lone match inside a damaged region could replay a write nobody made;
 * a chain to the very end of the file leaves that only to a crash tearing the log exactly where
 * such embedded records end. Records of one log may be applied in any order (versions compete by
 * timestamp), so a skipped record does not change what the others mean.
 *
 * <p>The file is mapped rather than streamed, so that the search can go back over bytes a failed
 * record claimed.
 */
final class WalReader {
    private static final Logger log = LoggerFactory.getLogger(WalReader.class);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * @param records      records replayed
     * @param skippedBytes bytes that were not part of an intact record (damage, or a torn tail)
     * @param damaged      true when intact records followed a failed one: the file was damaged, not
     *                     merely cut short by a crash, and should be kept for inspection
     */
    record Outcome(int records, long skippedBytes, boolean damaged) {
    }

    private WalReader() {}

    static Outcome replay(StorageFiles files, Path path, Consumer<Entry> sink) throws IOException {
        int count = 0;
        long skipped = 0;
        boolean damaged = false;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment file = files.map(path, arena);
            long size = file.byteSize();
            long offset = 0;
            while (offset < size) {
                Entry e = recordAt(file, offset);
                if (e != null) {
                    sink.accept(e);
                    count++;
                    offset += LogRecord.HEADER + file.get(INT, offset + 4);
                    continue;
                }
                String problem = problemAt(file, offset);
                long next = resumeAfter(file, offset);
                if (next < 0) {
                    log.warn("log {}: {} at offset {}; dropping the tail ({} bytes, no intact record after it)",
                            path, problem, offset, size - offset);
                    skipped += size - offset;
                    break;
                }
                log.warn("log {}: DAMAGED: {} at offset {}; skipped {} bytes to the next intact record at offset {} "
                        + "(the file will be kept as {}.corrupt)", path, problem, offset, next - offset, next, path.getFileName());
                damaged = true;
                skipped += next - offset;
                offset = next;
            }
        }
        log.info("log {}: replayed {} records{}", path, count, skipped == 0 ? "" : ", skipped " + skipped + " bytes");
        return new Outcome(count, skipped, damaged);
    }

    /** Where replay resumes after the failed record at {@code offset} (rules 1 and 2 above), or -1. */
    private static long resumeAfter(MemorySegment file, long offset) {
        long size = file.byteSize();
        if (size - offset >= LogRecord.HEADER) {
            int len = file.get(INT, offset + 4);
            long end = offset + LogRecord.HEADER + len;
            if (len >= LogRecord.BODY_FIXED && len <= LogRecord.MAX_BODY && end < size && recordAt(file, end) != null) return end;
        }
        for (long p = offset + 1; p < size; p++) {
            if (chainsToEnd(file, p)) return p;
        }
        return -1;
    }

    /** Whether intact records start at {@code p} and follow one another to the exact end of the file. */
    private static boolean chainsToEnd(MemorySegment file, long p) {
        long size = file.byteSize();
        do {
            if (recordAt(file, p) == null) return false;
            p += LogRecord.HEADER + file.get(INT, p + 4);
        } while (p < size);
        return true;
    }

    /** The entry of the intact record starting at {@code offset}, or null if there is none. */
    private static Entry recordAt(MemorySegment file, long offset) {
        int len = intactLength(file, offset);
        if (len < 0) return null;
        byte[] body = new byte[len];
        MemorySegment.copy(file, ValueLayout.JAVA_BYTE, offset + LogRecord.HEADER, body, 0, len);
        return LogRecord.decodeBody(body, len);
    }

    /** The body length of a whole record at {@code offset} whose CRC matches, or -1. */
    private static int intactLength(MemorySegment file, long offset) {
        long size = file.byteSize();
        if (size - offset < LogRecord.HEADER) return -1;
        int len = file.get(INT, offset + 4);
        if (len < LogRecord.BODY_FIXED || len > LogRecord.MAX_BODY || size - offset - LogRecord.HEADER < len) return -1;
        CRC32C crc = new CRC32C();
        crc.update(file.asSlice(offset + 4, 4L + len).asByteBuffer());
        return (int) crc.getValue() == file.get(INT, offset) ? len : -1;
    }

    /** Why no intact record starts at {@code offset}, for the log line. */
    private static String problemAt(MemorySegment file, long offset) {
        long left = file.byteSize() - offset;
        if (left < LogRecord.HEADER) return "torn record header (" + left + " of " + LogRecord.HEADER + " bytes)";
        int len = file.get(INT, offset + 4);
        if (len < LogRecord.BODY_FIXED || len > LogRecord.MAX_BODY) return "bad record length " + len;
        if (left - LogRecord.HEADER < len) return "torn record (" + (left - LogRecord.HEADER) + " of " + len + " body bytes)";
        if (intactLength(file, offset) < 0) return "checksum mismatch";
        return "malformed record";
    }
}
