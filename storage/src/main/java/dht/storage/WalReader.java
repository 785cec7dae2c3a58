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
 * Replays one log file ({@link LogFormat}), keeping every record whose fragments are all intact.
 *
 * <p>A fragment whose length runs past its block, whose CRC does not match or whose type is
 * unknown drops the record it belongs to. Reading resumes where a CRC-failed fragment's length
 * leads when intact fragments run from there to the end of the block or file ({@code tilesIntact}:
 * the damage was in that fragment alone); otherwise nothing more in its block can be trusted, and
 * reading resumes at the next block boundary, where a fragment header always starts. The MIDDLE and
 * LAST fragments found next of a record begun before are skipped. A fragment out of sequence (a
 * FULL or FIRST while a record is open, a MIDDLE or LAST with none) or a record whose body is
 * malformed drops that record only: the CRCs proved where each fragment ends, so reading goes on
 * in place.
 *
 * <p>Damage or a crash: a crash leaves at most a torn tail, with no intact fragment after it. So a
 * problem followed by an intact fragment makes the log {@linkplain Outcome#damaged damaged} (kept
 * for inspection); one that reaches the end of the file is a torn tail, dropped. Records of one
 * log may be applied in any order (versions compete by timestamp), so a dropped record does not
 * change what the others mean.
 */
final class WalReader {
    private static final Logger log = LoggerFactory.getLogger(WalReader.class);
    private static final String CHECKSUM_MISMATCH = "checksum mismatch";
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * @param records      records replayed
     * @param skippedBytes bytes that were not part of an intact record (damage, or a torn tail)
     * @param damaged      true when intact fragments followed a failed one: the file was damaged,
     *                     not merely cut short by a crash, and should be kept for inspection
     */
    record Outcome(int records, long skippedBytes, boolean damaged) {
    }

    private WalReader() {}

    /** Receives each intact record and the offset in the file where it starts. */
    interface RecordSink {
        void accept(long offset, Entry e);
    }

    static Outcome replay(StorageFiles files, Path path, Consumer<Entry> sink) throws IOException {
        return replayWithOffsets(files, path, (offset, e) -> sink.accept(e));
    }

    static Outcome replayWithOffsets(StorageFiles files, Path path, RecordSink sink) throws IOException {
        Outcome o;
        try (Arena arena = Arena.ofConfined()) {
            o = new Replay(files.map(path, arena), path, sink).run();
        } catch (InternalError e) {
            // how a read error of a mapped page (a bad sector: damage too) surfaces
            throw new IOException("log " + path + ": cannot be read: " + e.getMessage(), e);
        }
        log.info("log {}: replayed {} records{}", path, o.records(), o.skippedBytes() == 0 ? "" : ", skipped " + o.skippedBytes() + " bytes");
        return o;
    }

    /** One pass over a mapped log. */
    private static final class Replay {
        private final MemorySegment file;
        private final long size;
        private final Path path;
        private final RecordSink sink;
        private final CRC32C crc = new CRC32C();
        private int records;
        private long skipped;
        private boolean damaged;

        /** The body of the record being assembled from its fragments, while {@link #recordStart} >= 0. */
        private byte[] body = new byte[4096];
        private int bodyLength;
        private long recordStart = -1;

        /**
         * The problem not yet told (damage or a torn tail: what comes after decides), where it was
         * found, and where the bytes it drops begin (the start of the record it broke), or null.
         */
        private String problem;
        private long problemAt;
        private long droppedFrom;
        /** Whether an intact fragment followed {@link #problem}: then it is damage, not a torn tail. */
        private boolean intactSince;

        Replay(MemorySegment file, Path path, RecordSink sink) {
            this.file = file;
            this.size = file.byteSize();
            this.path = path;
            this.sink = sink;
        }

        Outcome run() {
            long p = 0;
            while (p < size) {
                int room = LogFormat.BLOCK - (int) (p % LogFormat.BLOCK);
                if (room < LogFormat.HEADER) { // the zeros of a block tail
                    p += room;
                    continue;
                }
                if (size - p < LogFormat.HEADER) {
                    fail(p, "torn fragment header (" + (size - p) + " of " + LogFormat.HEADER + " bytes)");
                    break;
                }
                int len = length(p);
                String bad = badFragment(p, room);
                if (bad != null) {
                    fail(p, bad);
                    long next = p + LogFormat.HEADER + len;
                    // Resume where its length leads if that holds up; else nothing more in this block can be trusted.
                    p = CHECKSUM_MISMATCH.equals(bad) && tilesIntact(next, p + room) ? next : p + room;
                    continue;
                }
                fragment(p, file.get(ValueLayout.JAVA_BYTE, p + 6), len);
                p += LogFormat.HEADER + len;
            }
            if (recordStart >= 0) fail(recordStart, "torn record (the file ends after " + bodyLength + " bytes of its body)");
            if (problem != null) endInProblem();
            return new Outcome(records, skipped, damaged);
        }

        /** An intact fragment at {@code p}. */
        private void fragment(long p, byte type, int len) {
            if (type == LogFormat.FULL || type == LogFormat.FIRST) {
                if (recordStart >= 0) fail(recordStart, "record without a LAST fragment");
                if (problem != null) resume(p);
                recordStart = p;
                bodyLength = 0;
            } else if (recordStart < 0) {
                // a MIDDLE or LAST of a record dropped already, or out of sequence
                if (problem == null) fail(p, LogFormat.typeName(type) + " fragment without a FIRST");
                intactSince = true;
                return;
            }
            if ((long) bodyLength + len > LogRecord.MAX_BODY) {
                fail(recordStart, "record longer than " + LogRecord.MAX_BODY + " bytes");
                intactSince = true;
                return;
            }
            if (body.length < bodyLength + len) {
                body = java.util.Arrays.copyOf(body, (int) Math.min(LogRecord.MAX_BODY, Math.max(2L * body.length, bodyLength + len)));
            }
            MemorySegment.copy(file, ValueLayout.JAVA_BYTE, p + LogFormat.HEADER, body, bodyLength, len);
            bodyLength += len;
            if (type == LogFormat.FULL || type == LogFormat.LAST) {
                Entry e = LogRecord.decodeBody(body, bodyLength);
                if (e == null) {
                    fail(recordStart, "malformed record");
                    intactSince = true;
                    return;
                }
                sink.accept(recordStart, e);
                records++;
                recordStart = -1;
            }
        }

        /** Drops the record being assembled, if any; a problem before the next record starts adds to the one not yet told. */
        private void fail(long at, String what) {
            if (problem == null) {
                problem = what;
                problemAt = at;
                droppedFrom = recordStart >= 0 ? Math.min(recordStart, at) : at;
                intactSince = false;
            }
            recordStart = -1;
        }

        /** A record starts at {@code p} after a problem: it was damage; told, and its bytes counted. */
        private void resume(long p) {
            log.warn("log {}: DAMAGED: {} at offset {}; skipped {} bytes to the next record at offset {} (the file will be kept as {})",
                    path, problem, problemAt, p - droppedFrom, p, FileNames.corrupt(path).getFileName());
            skipped += p - droppedFrom;
            damaged = true;
            problem = null;
        }

        /** The file ends in a problem: damage if intact fragments came after it, else a torn tail. */
        private void endInProblem() {
            long dropped = size - droppedFrom;
            if (intactSince) {
                log.warn("log {}: DAMAGED: {} at offset {}; dropping the tail ({} bytes): no whole record after it "
                        + "(the file will be kept as {})", path, problem, problemAt, dropped, FileNames.corrupt(path).getFileName());
                damaged = true;
            } else {
                log.warn("log {}: {} at offset {}; dropping the tail ({} bytes, no intact record after it)", path, problem,
                        problemAt, dropped);
            }
            skipped += dropped;
        }

        /**
         * Whether intact fragments, one at least, run from {@code q} to the end of its block (up to
         * its zero tail) or of the file. After a fragment whose checksum failed, its length (which
         * the checksum does not cover) is proven by that: a length damaged instead leads into
         * unchecked bytes, where a run of valid checksums that ends exactly where the block or file
         * does is not met by chance (a value holding log bytes would need them at its very end and
         * the damage to land exactly on them).
         */
        private boolean tilesIntact(long q, long blockEnd) {
            long x = q;
            int fragments = 0;
            while (x < size && blockEnd - x >= LogFormat.HEADER) {
                if (size - x < LogFormat.HEADER || badFragment(x, blockEnd - x) != null) return false; // torn header, or bad
                fragments++;
                x += LogFormat.HEADER + length(x);
            }
            return fragments > 0;
        }

        /** The payload length in the (whole) fragment header at {@code p}. */
        private int length(long p) {
            return file.get(SHORT, p + 4) & 0xFFFF;
        }

        /**
         * What is wrong with the fragment whose whole header is at {@code p}, {@code room} bytes
         * before its block ends; null when it is intact. A failed CRC is {@link #CHECKSUM_MISMATCH},
         * the one case whose length may still hold.
         */
        private String badFragment(long p, long room) {
            int len = length(p);
            byte type = file.get(ValueLayout.JAVA_BYTE, p + 6);
            if (len > room - LogFormat.HEADER) {
                return "bad fragment length " + len + " (" + (room - LogFormat.HEADER) + " bytes left in its block)";
            }
            if (size - p - LogFormat.HEADER < len) {
                return "torn fragment (" + (size - p - LogFormat.HEADER) + " of " + len + " payload bytes)";
            }
            if (!crcMatches(p, len)) return CHECKSUM_MISMATCH;
            if (type < LogFormat.FULL || type > LogFormat.LAST) return "unknown fragment " + LogFormat.typeName(type);
            return null;
        }

        private boolean crcMatches(long p, int len) {
            crc.reset();
            crc.update(file.asSlice(p + 6, len + 1L).asByteBuffer());
            return (int) crc.getValue() == file.get(Bytes.INT, p);
        }
    }
}
